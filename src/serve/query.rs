//! A request target split into its path and its decoded query parameters
//! (`/api/position?fen=B%3AW21-32%3AB1-12`).

use super::error::ApiError;

/// A request's path and query parameters, percent-decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The path, as sent (`/api/ballot/1`).
    pub path: String,
    /// The parameters in order, names and values decoded (`+` is a space).
    pub params: Vec<(String, String)>,
}

impl Target {
    /// Splits `url` (path and optional query) into a [`Target`]. Bytes
    /// that do not form UTF-8 after decoding are replaced, so a bad
    /// request gives a bad value, never a failure here.
    pub fn parse(url: &str) -> Target {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let params = query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (decode(k), decode(v))
            })
            .collect();
        Target {
            path: decode(path),
            params,
        }
    }

    /// The first value of parameter `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of parameter `name`, which must be given.
    pub fn require(&self, name: &'static str) -> Result<&str, ApiError> {
        self.get(name).ok_or(ApiError::MissingParam(name))
    }

    /// Parameter `name` as a number in `1..=max`, `default` when absent.
    pub fn count(&self, name: &'static str, default: usize, max: usize) -> Result<usize, ApiError> {
        let Some(text) = self.get(name) else {
            return Ok(default);
        };
        match text.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::BadParam {
                name,
                problem: format!("{text:?} is not a number from 1 to {max}"),
            }),
        }
    }
}

/// Percent-decodes `s`, with `+` as a space; a `%` not followed by two hex
/// digits is kept as it is.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_parameters_are_decoded() {
        let t = Target::parse("/api/position?fen=B%3AW21-32%3AB1-12&x=a+b&flag");
        assert_eq!(t.path, "/api/position");
        assert_eq!(t.get("fen"), Some("B:W21-32:B1-12"));
        assert_eq!(t.get("x"), Some("a b"));
        assert_eq!(t.get("flag"), Some(""));
        assert_eq!(t.get("y"), None);
        assert!(matches!(t.require("y"), Err(ApiError::MissingParam("y"))));
        // Bad escapes are kept, never a failure.
        assert_eq!(Target::parse("/a?q=%zz%4").get("q"), Some("%zz%4"));
        assert_eq!(Target::parse("/a?q=%ff").get("q"), Some("\u{fffd}"));
    }

    #[test]
    fn counts_are_checked() {
        let t = Target::parse("/p?limit=20&bad=0&worse=x");
        assert_eq!(t.count("limit", 5, 100).unwrap(), 20);
        assert_eq!(t.count("none", 5, 100).unwrap(), 5);
        assert!(t.count("bad", 5, 100).is_err());
        assert!(t.count("worse", 5, 100).is_err());
        assert!(t.count("limit", 5, 10).is_err());
    }
}
