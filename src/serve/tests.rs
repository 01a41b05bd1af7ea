//! The routes called without a socket, on a store made here.

use super::*;
use ballots::tables::{BallotTables, LinePlyRow, Origin};
use engine::notation::fen::parse_fen;
use engine::{NoOracle, Value};
use proofdb::{LeafSource, Outcome, ProofEntry, ProofTree, Provenance, Question, ResultRecord};
use serde_json::Value as Json;

/// Black to move takes White's last man: a win in one.
const WIN_IN_ONE: &str = "B:W14:B10";

struct Fixture {
    browser: Browser,
    _dir: tempfile::TempDir,
    line: Vec<LinePlyRow>,
}

/// Ballot 1's main line to ply 5 (ply 4 a stored draw, ply 5 inside its
/// proof), and a proof tree of two nodes for [`WIN_IN_ONE`].
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    let store = Store::open(&path).unwrap();
    let mut line = ballots::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21", "11-15"]);
    for p in &mut line[3..] {
        p.origin = Origin::Engine;
    }
    for p in &mut line[1..] {
        p.score = Some(10 * (p.ply as i32 - 1));
    }
    store.set_main_line(1, &line).unwrap();
    let prov = Provenance {
        solver: "dfpn".into(),
        ..Provenance::default()
    };
    // Ply 4's draw: its at-least-draw tree plays 11-15 to ply 5, a
    // database leaf (unverified, as proofdb::testing's trees), so ply 5
    // is known from a tree only.
    let (p4, p5) = (line[4].position, line[5].position);
    let m = *p4
        .moves()
        .iter()
        .find(|m| m.to_string() == "11-15")
        .unwrap();
    let at_least = ProofTree {
        root: p4,
        question: Question::AtLeastDraw,
        nodes: vec![
            (p4, ProofEntry::Prover(m)),
            (p5, ProofEntry::Leaf(LeafSource::Egdb)),
        ],
    };
    let at_most = ProofTree {
        root: p4,
        question: Question::AtMostDraw,
        nodes: vec![(p4, ProofEntry::Leaf(LeafSource::Egdb))],
    };
    let rec = ResultRecord::new(p4, Outcome::Exact(Value::Draw), prov.clone(), 3);
    store.put_proof(&rec, &[at_least, at_most], "test").unwrap();
    let root = parse_fen(WIN_IN_ONE).unwrap();
    let tree = proofdb::testing::win_in_one(root);
    let rec = ResultRecord::new(root, Outcome::Exact(Value::Win), prov, 2);
    store.put_proof(&rec, &[tree], "test").unwrap();
    drop(store);
    let store = Store::open_readonly(&path).unwrap();
    Fixture {
        browser: Browser {
            proved: ResultCache::load(&store).unwrap(),
            store,
            oracle: Arc::new(NoOracle),
            egdb_pieces: 0,
            deck: Deck::builtin(),
        },
        _dir: dir,
        line,
    }
}

fn get(b: &Browser, url: &str) -> (u16, Json) {
    let r = b.handle("GET", url);
    assert_eq!(r.content_type, "application/json; charset=utf-8", "{url}");
    (r.status, serde_json::from_str(&r.body).unwrap())
}

fn fen_param(fen: &str) -> String {
    fen.replace(':', "%3A").replace(',', "%2C")
}

#[test]
fn a_position_has_its_value_and_each_moves() {
    let f = fixture();
    let ply3 = engine::notation::fen::to_fen(&f.line[3].position);
    let (status, j) = get(
        &f.browser,
        &format!("/api/position?fen={}", fen_param(&ply3)),
    );
    assert_eq!(status, 200);
    assert_eq!(j["fen"], ply3);
    assert_eq!(j["side_to_move"], "White");
    assert_eq!(j["value"]["label"], "?");
    assert_eq!(j["value"]["source"], "open");
    assert_eq!(j["main_lines"][0]["ballot"], 1);
    assert_eq!(j["main_lines"][0]["ply"], 3);
    assert_eq!(j["squares"].as_str().unwrap().len(), 32);
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7);
    // 25-21 leads to ply 4, a stored draw: D for the mover too.
    let m = moves.iter().find(|m| m["move"] == "25-21").unwrap();
    assert_eq!(m["label"], "D");
    assert_eq!(m["value"]["source"], "store");
    assert_eq!(m["value"]["outcome"], "draw");
    assert_eq!(m["value"]["solver"], "dfpn");
    assert!(moves
        .iter()
        .filter(|m| m["move"] != "25-21")
        .all(|m| m["label"] == "?"));
}

#[test]
fn a_won_position_shows_its_tree_and_winning_move() {
    let f = fixture();
    let (status, j) = get(&f.browser, &format!("/api/position?fen={WIN_IN_ONE}"));
    assert_eq!(status, 200);
    assert_eq!(j["value"]["label"], "W");
    assert_eq!(j["value"]["proof_size"], 2);
    assert_eq!(j["moves"][0]["move"], "10x17");
    assert_eq!(j["moves"][0]["label"], "W");
    assert_eq!(j["moves"][0]["value"]["source"], "terminal");
    assert_eq!(j["trees"][0]["question"], "win");
    assert_eq!(j["trees"][0]["node_count"], 2);

    let (status, j) = get(&f.browser, &format!("/api/proof?fen={WIN_IN_ONE}"));
    assert_eq!(status, 200);
    let t = &j["trees"][0];
    assert_eq!(t["proves"], "W");
    assert_eq!(t["truncated"], false);
    assert_eq!(t["nodes"][0]["kind"], "prover");
    assert_eq!(t["nodes"][0]["proved"], "W");
    assert_eq!(t["nodes"][1]["kind"], "leaf");
    assert_eq!(t["nodes"][1]["leaf"], "terminal");
    assert_eq!(t["nodes"][1]["proved"], "L");
    assert_eq!(
        t["edges"][0],
        serde_json::json!({"from": 0, "to": 1, "move": "10x17"})
    );

    // The child is inside that tree, not the root of one.
    let child = t["nodes"][1]["fen"].as_str().unwrap().to_string();
    let (_, j) = get(&f.browser, &format!("/api/proof?fen={}", fen_param(&child)));
    assert_eq!(j["trees"].as_array().unwrap().len(), 0);
    assert_eq!(j["containing"][0]["root"], "B:W14:B10");

    // A limit of one node leaves the child out.
    let (_, j) = get(&f.browser, &format!("/api/proof?fen={WIN_IN_ONE}&limit=1"));
    assert_eq!(j["trees"][0]["truncated"], true);
    assert_eq!(j["trees"][0]["nodes"][0]["more"], true);
}

#[test]
fn a_ballot_line_ply_by_ply() {
    let f = fixture();
    let (status, j) = get(&f.browser, "/api/ballot/1");
    assert_eq!(status, 200);
    assert_eq!(j["number"], 1);
    assert_eq!(j["moves"], "9-13 21-17 5-9");
    assert_eq!(j["origins"], serde_json::json!([3, 0, 3, 0]));
    assert_eq!(j["frontier_ply"], 4);
    let plies = j["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 6);
    assert_eq!(plies[4]["move"], "25-21");
    assert_eq!(plies[4]["origin"], "engine");
    assert_eq!(plies[4]["score_text"], "+0.30");
    assert_eq!(plies[4]["value"]["label"], "D");
    assert_eq!(plies[4]["value"]["proof_size"], 3);
    assert_eq!(plies[5]["value"]["label"], "L or D");
    assert_eq!(plies[5]["value"]["source"], "proof");
    assert_eq!(
        plies[0]["fen"],
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );

    let (status, j) = get(&f.browser, "/api/ballots");
    assert_eq!(status, 200);
    assert_eq!(j["ballots"][0]["number"], 1);
    assert_eq!(j["ballots"][0]["frontier_ply"], 4);
    assert_eq!(j["ballots"][0]["label"], "D");
    assert!(j["store"].as_str().unwrap().ends_with("s.sqlite"));
}

#[test]
fn bad_requests_are_named_never_a_panic() {
    let f = fixture();
    let b = &f.browser;
    let (status, j) = get(b, "/api/position?fen=B%3AW33%3AB1");
    assert_eq!(status, 400);
    let e = j["error"].as_str().unwrap();
    assert!(e.contains("bad FEN \"B:W33:B1\""), "{e}");
    assert_eq!(j["status"], 400);
    assert_eq!(get(b, "/api/position").0, 400);
    assert!(get(b, "/api/position").1["error"]
        .as_str()
        .unwrap()
        .contains("\"fen\""));
    assert_eq!(get(b, "/api/proof?fen=junk").0, 400);
    assert_eq!(
        get(b, &format!("/api/proof?fen={WIN_IN_ONE}&limit=0")).0,
        400
    );
    let (status, j) = get(b, "/api/ballot/7");
    assert_eq!(status, 404);
    assert!(j["error"]
        .as_str()
        .unwrap()
        .contains("ballot 7: no main line stored in"));
    let (status, j) = get(b, "/api/ballot/999");
    assert_eq!(status, 404);
    assert!(j["error"].as_str().unwrap().contains("no ballot 999"));
    assert_eq!(get(b, "/api/ballot/x%00").0, 400);
    assert_eq!(get(b, "/api/nothing").0, 404);
    assert_eq!(b.handle("POST", "/api/ballots").status, 405);
}

#[test]
fn the_page_is_served_whole() {
    let f = fixture();
    let r = f.browser.handle("GET", "/");
    assert_eq!(r.status, 200);
    assert!(r.content_type.starts_with("text/html"));
    assert!(r.body.contains("<svg"));
    // No resource from the network.
    for attr in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "href='http",
        "@import",
    ] {
        assert!(!r.body.contains(attr), "{attr}");
    }
}

/// Knows one position exactly: a draw (a database value, not a stored one).
struct OneDraw(engine::Position);

impl engine::Oracle for OneDraw {
    fn probe(&self, pos: &engine::Position) -> Option<Value> {
        (*pos == self.0).then_some(Value::Draw)
    }
}

/// A main line whose plies 4 and 6 have exact stored values with a bound
/// (at least a draw) at ply 5 between them, and whose ply 3 the databases
/// know but the store does not: the ballot list and the ballot page name
/// the same frontier, ply 4, the one `ballots status` names.
#[test]
fn the_list_and_the_page_name_one_frontier() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    let store = Store::open(&path).unwrap();
    let line =
        ballots::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21", "11-15", "29-25"]);
    store.set_main_line(1, &line).unwrap();
    for (ply, outcome) in [
        (4, Outcome::Exact(Value::Draw)),
        (5, Outcome::AtLeastDraw),
        (6, Outcome::Exact(Value::Draw)),
    ] {
        let rec = ResultRecord::new(line[ply].position, outcome, Provenance::default(), 1);
        proofdb::testing::put_unverified(&store, &rec).unwrap();
    }
    drop(store);
    let store = Store::open_readonly(&path).unwrap();
    let status = ballots::report::status(&store, &[Deck::builtin().get(1).unwrap()]).unwrap();
    assert_eq!(status[0].frontier_ply, Some(4));
    let browser = Browser {
        proved: ResultCache::load(&store).unwrap(),
        store,
        oracle: Arc::new(OneDraw(line[3].position)),
        egdb_pieces: 24,
        deck: Deck::builtin(),
    };
    let (_, page) = get(&browser, "/api/ballot/1");
    let (_, list) = get(&browser, "/api/ballots");
    assert_eq!(page["plies"][3]["value"]["source"], "egdb");
    assert_eq!(page["plies"][5]["value"]["label"], "D or W");
    assert_eq!(page["frontier_ply"], 4);
    assert_eq!(list["ballots"][0]["frontier_ply"], 4);
}
