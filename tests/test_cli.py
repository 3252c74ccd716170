"""The corpuskit command: import, export, keys, errors (exit status 2 with a message)."""
import subprocess
import sys

from corpuskit.cli import main
from tests.test_import import HN_HEADER, write_csv


def test_import_summary_and_rejections(tmp_path, capsys):
    path = write_csv(tmp_path / "hn.csv", HN_HEADER, [
        ["1", "fine", "", "1", "1", "a", "8/4/2016 11:52"],
        ["2", "", "", "1", "1", "b", "8/4/2016 11:52"],
    ])
    db = str(tmp_path / "c.db")
    assert main(["import", str(path), "--db", db, "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "read 2, added 1, duplicates 0, rejected 1" in out
    assert "rejected row 2: no text" in err
    assert main(["import", str(path), "--db", db, "--quiet"]) == 0
    assert "read 2, added 0, duplicates 1, rejected 1" in capsys.readouterr().out


def test_strict_import_exit_status(tmp_path, capsys):
    path = write_csv(tmp_path / "hn.csv", HN_HEADER, [["2", "", "", "1", "1", "b", "8/4/2016 11:52"]])
    assert main(["import", str(path), "--db", str(tmp_path / "c.db"), "--strict", "--quiet"]) == 2
    assert "strict import aborted" in capsys.readouterr().err


def test_map_and_source_options(tmp_path, capsys):
    path = write_csv(tmp_path / "x.csv", ["body", "when"], [["hello", "2020-01-01"]])
    db = str(tmp_path / "c.db")
    code = main(["import", str(path), "--db", db, "--source", "news", "--map", "contentText=body",
                 "--map", "publishedAt=when", "--topic", "t", "--quiet"])
    assert code == 0 and "added 1" in capsys.readouterr().out


def test_export_command(tmp_path, capsys):
    path = write_csv(tmp_path / "hn.csv", HN_HEADER, [["1", "fine", "", "1", "1", "a", "8/4/2016 11:52"]])
    db = str(tmp_path / "c.db")
    main(["import", str(path), "--db", db, "--quiet"])
    assert main(["export", str(tmp_path / "o.parquet"), "--db", db, "--format", "parquet"]) == 0
    assert "exported 1 records" in capsys.readouterr().out


def test_keys_lifecycle(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    assert main(["keys", "create", "--db", db, "--tier", "research", "--name", "lab"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    key = out[-1]
    assert key.startswith("ck_") and " " not in key
    assert main(["keys", "list", "--db", db]) == 0
    listing = capsys.readouterr().out
    assert "lab" in listing and "research" in listing and key not in listing
    assert main(["keys", "revoke", "--db", db, "lab"]) == 0
    assert main(["keys", "list", "--db", db]) == 0
    assert "revoked" in capsys.readouterr().out
    assert main(["keys", "create", "--db", db, "--tier", "free", "--per-minute", "9"]) == 2


def test_clear_errors(tmp_path, capsys):
    assert main(["import", str(tmp_path / "none.csv"), "--db", str(tmp_path / "c.db")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["export", "x.jsonl", "--db", str(tmp_path / "nodir" / "c.db")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_python_dash_m(tmp_path):
    result = subprocess.run([sys.executable, "-m", "corpuskit", "keys", "list", "--db", str(tmp_path / "c.db")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "no keys" in result.stdout


def test_version(capsys):
    import pytest

    import corpuskit

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"corpuskit {corpuskit.__version__}"


def test_keys_create_help_lists_db(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["keys", "create", "--help"])
    assert "--db DB" in capsys.readouterr().out


def test_export_table_command(tmp_path, capsys, demo_path):
    out = tmp_path / "signals.csv"
    assert main(["export", str(out), "--db", str(demo_path), "--table", "signals", "--format", "csv"]) == 0
    assert "rows of signals" in capsys.readouterr().out
    assert out.read_text().splitlines()[0].startswith("signalId,kind,topicId")
    import pytest

    with pytest.raises(SystemExit) as exit_:
        main(["export", str(out), "--db", str(demo_path), "--table", "runs"])
    assert exit_.value.code == 2 and "invalid choice: 'runs'" in capsys.readouterr().err
