//! `plot oware`: the layer summaries behind the value plot, and the files.

use mancala_tb::games::oware::Ruleset;
use mancala_tb::plot::{LayerSummary, layer_summaries};

use crate::common::run as mancala_tb;

#[test]
fn value_plot_summarises_each_layer_and_writes_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(
        mancala_tb(&["build", "oware", "--max-seeds", "6", "--dir", d])
            .status
            .success()
    );
    let layers = layer_summaries(dir.path(), Ruleset::Awari).unwrap();
    assert_eq!(layers.len(), 7);
    // Layer 3 (as `stats oware --seeds 3` counts it): values −3 ×177,
    // −1 ×1, 0 ×63, 1 ×7, 3 ×116.
    assert_eq!(
        layers[3],
        LayerSummary {
            seeds: 3,
            positions: 364,
            wins: 123,
            draws: 63,
            losses: 178,
            spread: [-3, -3, 0, 3, 3],
        }
    );

    let svg = dir.path().join("values.svg");
    let out = mancala_tb(&["plot", "oware", "--dir", d, "--out", svg.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.contains("Oware (awari): values by seeds on the board"));

    // Every layer just built has its time recorded: the rate plot has data.
    let png = dir.path().join("rates.png");
    let out = mancala_tb(&[
        "plot",
        "oware",
        "--dir",
        d,
        "--kind",
        "rates",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
}

#[test]
fn plot_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // The message, and the exit code by cause (README, "Exit codes").
    let failure = |args: &[&str]| {
        let out = mancala_tb(args);
        let err = String::from_utf8(out.stderr).unwrap();
        (out.status.code().unwrap(), err)
    };
    let err = |args: &[&str]| failure(args).1;
    assert_eq!(
        failure(&["plot", "oware", "--dir", d, "--out", "x.svg"]),
        (3, "error: no layers of the awari tables are built\n".into())
    );
    assert!(
        mancala_tb(&["build", "oware", "--max-seeds", "2", "--dir", d])
            .status
            .success()
    );
    assert_eq!(
        failure(&["plot", "oware", "--dir", d, "--out", "x.gif"]),
        (
            2,
            "error: x.gif: the plot file must end in .svg or .png\n".into()
        )
    );
    std::fs::remove_file(dir.path().join("oware-awari/build-times.tsv")).unwrap();
    assert!(
        err(&[
            "plot", "oware", "--dir", d, "--kind", "rates", "--out", "x.svg"
        ])
        .starts_with("error: no build times recorded in ")
    );
}
