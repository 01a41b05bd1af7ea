//! The frontier of a ballot: the earliest ply of its main line whose
//! position has an exact proved value. The walk, `ballots show`, `ballots
//! status`/`report` and the browser all take it from here, so that they
//! never name different plies for one ballot.

use proofdb::Outcome;

/// The earliest of `plies` (ply number and the outcome proved there, in
/// any order) whose outcome is exact, with that outcome; a bound (at
/// least or at most a draw) is not a frontier, wherever it stands.
pub fn frontier<P>(plies: impl IntoIterator<Item = (P, Option<Outcome>)>) -> Option<(P, Outcome)>
where
    P: Ord + Copy,
{
    plies
        .into_iter()
        .filter_map(|(ply, o)| match o {
            Some(o @ Outcome::Exact(_)) => Some((ply, o)),
            _ => None,
        })
        .min_by_key(|&(ply, _)| ply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Value;

    #[test]
    fn the_earliest_exact_ply_past_bounds_and_gaps() {
        let d = Some(Outcome::Exact(Value::Draw));
        let w = Some(Outcome::Exact(Value::Win));
        let plies = [
            (9u32, w),
            (4, Some(Outcome::AtLeastDraw)),
            (6, d),
            (5, None),
            (7, Some(Outcome::AtMostDraw)),
        ];
        assert_eq!(frontier(plies), Some((6, Outcome::Exact(Value::Draw))));
        assert_eq!(
            frontier([(3u32, Some(Outcome::AtLeastDraw)), (4, None)]),
            None
        );
        assert_eq!(frontier(Vec::<(usize, Option<Outcome>)>::new()), None);
    }
}
