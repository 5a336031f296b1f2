//! `mancala-tb serve` as a client meets it: the API answers what `query
//! --json` prints, bad requests get 400 and missing tables 404, both with a
//! JSON `{"error": ...}`, and the board page is served.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

fn mancala_tb(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mancala-tb"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A server on a free port of 127.0.0.1, stopped when dropped.
pub struct Server {
    child: Child,
    addr: String,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mancala-tb"))
            .args(["serve", "--bind", "127.0.0.1:0", "--dir"])
            .arg(dir)
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .rsplit("http://")
            .next()
            .unwrap()
            .trim_end_matches('/')
            .to_string();
        Server { child, addr }
    }

    /// GET `path`: the status code and the body.
    pub fn get(&self, path: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        let status = reply[9..12].parse().unwrap();
        let body = reply.split_once("\r\n\r\n").unwrap().1.to_string();
        (status, body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn build(dir: &Path, args: &[&str]) {
    let mut all = vec!["build"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--dir", dir.to_str().unwrap()]);
    mancala_tb(&all);
}

fn query(dir: &Path, game: &str, options: &[&str], pits: &[u32]) -> String {
    let pits: Vec<String> = pits.iter().map(u32::to_string).collect();
    let mut args = vec!["query", game, "--json", "--dir", dir.to_str().unwrap()];
    args.extend_from_slice(options);
    args.extend(pits.iter().map(String::as_str));
    mancala_tb(&args).trim_end().to_string()
}

fn joined(pits: &[u32]) -> String {
    pits.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A fixed spread of positions: `seeds` seeds dealt round `pits` pits by
/// a small linear congruential generator.
fn sample(pits: usize, seeds: u32, count: usize) -> Vec<Vec<u32>> {
    let mut state = 12345u64;
    (0..count)
        .map(|_| {
            let mut board = vec![0; pits];
            for _ in 0..seeds {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                board[(state >> 33) as usize % pits] += 1;
            }
            board
        })
        .collect()
}

#[test]
fn api_answers_equal_query_json_for_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // (build arguments, query options, API parameters, pits, seeds).
    let cases: [(&str, &[&str], &str, usize, u32); 6] = [
        ("oware --max-seeds 8", &[], "", 12, 8),
        (
            "oware --rules abapa --max-seeds 6",
            &["--rules", "abapa"],
            "rules=abapa&",
            12,
            6,
        ),
        (
            "engehe --width 3 --max-seeds 7",
            &["--width", "3"],
            "width=3&",
            6,
            7,
        ),
        (
            "omweso --width 2 --seeds 7",
            &["--width", "2"],
            "width=2&",
            8,
            7,
        ),
        (
            "omweso --width 2 --seeds 7 --endless illegal",
            &["--width", "2", "--endless", "illegal"],
            "width=2&endless=illegal&",
            8,
            7,
        ),
        (
            "omweso --width 2 --seeds 7 --objective points",
            &["--width", "2", "--objective", "points"],
            "width=2&objective=points&",
            8,
            7,
        ),
    ];
    for (args, ..) in &cases {
        build(d, &args.split(' ').collect::<Vec<_>>());
    }
    let server = Server::start(d);
    let mut checked = 0;
    for (args, options, params, pits, seeds) in cases {
        let game = args.split(' ').next().unwrap();
        // Oware and En Gehé layers below the top are sampled too.
        let layers = if game == "omweso" {
            vec![seeds]
        } else {
            vec![1, seeds / 2, seeds]
        };
        for layer in layers {
            for pits in sample(pits, layer, 8) {
                let path = format!("/api/{game}?{params}pits={}", joined(&pits));
                let (status, body) = server.get(&path);
                assert_eq!(status, 200, "{path}: {body}");
                assert_eq!(body, query(d, game, options, &pits), "{path}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 8 * 3 * 3 + 8 * 3);

    // The bulijo label of issue 12: the opponent's only moves never end.
    let (_, body) = server.get("/api/omweso?width=2&endless=illegal&pits=0,0,0,2,0,1,3,1");
    assert!(
        body.starts_with(r#"{"distance":1,"moves":[{"distance":1,"path":[{"direction":"ccw","lap":0,"pit":3}],"result":{"points":1,"wins":"bulijo"},"value":{"moves":1,"result":"win"}}]"#),
        "{body}"
    );

    let (status, body) = server.get("/api/tables");
    assert_eq!(status, 200);
    assert!(body.contains(r#""file":"oware-awari/scores.8.mtb","game":"oware","options":"","positions":75504,"ruleset":"awari","seeds":8}"#), "{body}");
}

#[test]
fn bad_requests_get_400_and_missing_tables_404_with_a_json_error() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &["oware", "--max-seeds", "4"]);
    let server = Server::start(dir.path());
    let cases = [
        ("/api/oware?pits=1,2", 400, "an Oware position has 12 pits"),
        (
            "/api/oware?pits=1,x,0,0,0,0,0,0,0,0,0,0",
            400,
            "'x' is not a pit count",
        ),
        (
            "/api/oware?pits=9,4,4,4,4,4,4,4,4,4,4,4",
            400,
            "at most 48 seeds, this one has 53",
        ),
        (
            "/api/oware?rules=kalah&pits=1,0,0,0,0,0,0,0,0,0,0,0",
            400,
            "unknown Oware ruleset 'kalah'",
        ),
        ("/api/oware", 400, "parameter 'pits' is missing"),
        (
            "/api/oware?pits=1,0,0,0,0,0,0,0,0,0,0,0&color=red",
            400,
            "unknown parameter 'color'",
        ),
        (
            "/api/oware?pits=1,0,0,0,0,0,0,0,0,0,0,0&pits=1",
            400,
            "parameter 'pits' is given twice",
        ),
        ("/api/omweso?pits=1,1", 400, "parameter 'width' is missing"),
        (
            "/api/omweso?width=2&objective=score&pits=2,0,0,0,0,0,0,0",
            400,
            "'score' is not wdl or points",
        ),
        (
            "/api/omweso?width=2&endless=never&pits=2,0,0,0,0,0,0,0",
            400,
            "endless",
        ),
        ("/api/engehe?width=99&pits=1,1", 400, "board width 99"),
        (
            "/api/oware?pits=5,0,0,0,0,0,0,0,0,0,0,0",
            404,
            "build it with `mancala-tb build oware --rules awari --max-seeds 5",
        ),
        (
            "/api/omweso?width=2&pits=2,0,0,0,0,0,0,2",
            404,
            "build it with `mancala-tb build omweso --width 2 --seeds 4",
        ),
        (
            "/api/engehe?width=3&pits=1,0,0,0,0,1",
            404,
            "build it with `mancala-tb build engehe --width 3",
        ),
        ("/nowhere", 404, "no such page"),
    ];
    for (path, status, message) in cases {
        let (got, body) = server.get(path);
        assert_eq!(got, status, "{path}: {body}");
        assert!(
            body.starts_with(r#"{"error":""#) && body.contains(message),
            "{path}: {body}"
        );
    }
    let long = format!("/api/oware?pits={}", "0,".repeat(2000));
    let (status, body) = server.get(&long);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("longer than 2048 bytes"), "{body}");

    // The page and its script come from the binary.
    let (status, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(page.contains(r#"<script src="board.js">"#));
    let (status, script) = server.get("/board.js");
    assert_eq!(status, 200);
    assert!(script.contains("/api/"));
    // Without a position the page asks for a start the tables cover.
    assert!(script.contains("/api/oware/start?"));
}

#[test]
fn the_start_endpoint_names_a_position_the_built_tables_cover() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &["oware", "--max-seeds", "12"]);
    let server = Server::start(dir.path());
    let layers: Vec<u32> = (0..=12).collect();
    let (status, body) = server.get("/api/oware/start");
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "description": "1 seed in every pit (12 seeds), the largest such start the awari \
                            tables hold (layers 0..=12)",
            "built_layers": layers,
            "pits": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        })
    );
    // ... and the position it names is answered.
    let (status, _) = server.get("/api/oware?pits=1,1,1,1,1,1,1,1,1,1,1,1");
    assert_eq!(status, 200);

    let (status, body) = server.get("/api/oware/start?rules=awari&random=true");
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        json["description"]
            .as_str()
            .unwrap()
            .starts_with("a position drawn at random from layer 12, "),
        "{body}"
    );
    let pits: Vec<u64> = json["pits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    assert_eq!(pits.iter().sum::<u64>(), 12, "{body}");
    let (status, body) = server.get(&format!("/api/oware?pits={}", joined_u64(&pits)));
    assert_eq!(status, 200, "{body}");
    assert!(
        !body.contains(r#""moves":[]"#),
        "a drawn start has a move: {body}"
    );

    for (path, status, message) in [
        (
            "/api/oware/start?rules=abapa",
            404,
            "layer 12 of the abapa tables is missing",
        ),
        ("/api/oware/start?random=yes", 400, "parameter 'random'"),
        ("/api/oware/start?pits=1", 400, "unknown parameter 'pits'"),
    ] {
        let (got, body) = server.get(path);
        assert_eq!(got, status, "{path}: {body}");
        assert!(
            body.starts_with(r#"{"error":""#) && body.contains(message),
            "{path}: {body}"
        );
    }
}

fn joined_u64(pits: &[u64]) -> String {
    pits.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
