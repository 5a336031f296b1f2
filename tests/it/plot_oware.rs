//! `plot oware`: the files, and its errors (the layer summaries behind the
//! value plot are checked in the binary's `plot` module).

use crate::common::run as mancala_tb;

#[test]
fn value_and_rate_plots_are_written_as_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(
        mancala_tb(&["build", "oware", "--max-seeds", "6", "--dir", d])
            .status
            .success()
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
