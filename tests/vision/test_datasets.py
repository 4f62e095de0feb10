"""A labels file's rows are checked as they are read: a value no die of the row's type
shows, or a die type the camera does not read, is named with its row, not scored."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vision.datasets import DatasetError, read_dataset
from vision.errata import apply_errata, read_errata


def _labels(folder: Path, *rows: str) -> Path:
    folder.mkdir(exist_ok=True)
    text = "file,die_type,values\n" + "".join(r + "\n" for r in rows)
    (folder / "labels.csv").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ("b.jpg,d6,1;9", "row 3: a d6 has no face 9"),
        ("b.jpg,d7,1", "row 3: die_type 'd7' is none of d5, d6, d6_numeral, d10, d20, dF"),
        ("b.jpg,d6,one", "row 3: values 'one' are not whole numbers separated by ';'"),
        ("b.jpg,d10,3;10", "row 3: a d10 has no face 10 (a d10's 10 is written 0)"),
        ("b.jpg,dF,-2", "row 3: a dF has no face -2"),
        ("b.jpg,none,4", "row 3: an empty tray (die_type none) lists no values"),
        ("b.jpg,mixed,0;21", "row 3: no die the camera reads has a face 21"),
        (",d6,1", "row 3: no file named"),
        ("b.jpg,d6,", "row 3: no values: a row of d6 lists the value of every die"),
        ("b.jpg,mixed, ; ", "row 3: no values: a row of mixed lists"),
        ("b.jpg,d20,1_0", "row 3: values '1_0' are not whole numbers"),
        ("b.jpg,d20,+3", "row 3: values '+3' are not whole numbers"),
        ("b.jpg,d20,2;\u0663", "row 3: values '2;\u0663' are not whole numbers"),
        ("b.jpg,d20,\u00b2", "row 3: values '\u00b2' are not whole numbers"),
    ],
)
def test_a_row_no_die_could_show_is_named_with_its_row(tmp_path: Path, row: str, said: str) -> None:
    folder = _labels(tmp_path / "set", "a.jpg,d20,7;20", row)
    with pytest.raises(DatasetError, match="row") as err:
        read_dataset(folder)
    assert said in str(err.value)


def test_rows_every_die_type_may_show_are_read_sorted(tmp_path: Path) -> None:
    folder = _labels(
        tmp_path / "set",
        "a.jpg,d6,6;1;3", "b.jpg,dF,1;-1;0", "c.jpg,d10,0;9", "d.jpg,d20,20",
        "e.jpg,d5,5", "f.jpg,d6_numeral,2", "g.jpg,mixed,-1;20", "h.jpg,none,",
    )  # fmt: skip
    read = {item.path.name: item.values for item in read_dataset(folder)}
    assert read == {
        "a.jpg": (1, 3, 6), "b.jpg": (-1, 0, 1), "c.jpg": (0, 9), "d.jpg": (20,),
        "e.jpg": (5,), "f.jpg": (2,), "g.jpg": (-1, 20), "h.jpg": (),
    }  # fmt: skip


def test_a_file_cell_is_trimmed_as_the_values_are(tmp_path: Path) -> None:
    """A file cell " a.jpg " named a file with spaces round its name (none is there)."""
    from vision.datasets import VALUE
    from vision.teach import FACE_NAME

    folder = _labels(tmp_path / "set", " a.jpg ,d6, 3 ; 1 ", "b.jpg , none ,")
    (folder / "boxes.csv").write_text("file,value,xmin,ymin,xmax,ymax\n a.jpg ,3,1,1,9,9\n")
    read = [(item.path, item.die_type, item.values, item.boxes) for item in read_dataset(folder)]
    assert [r[:3] for r in read] == [
        (folder / "a.jpg", "d6", (1, 3)),
        (folder / "b.jpg", "none", ()),
    ]
    assert read[0][3] is not None and [b.value for b in read[0][3]] == [3]
    assert VALUE == FACE_NAME  # one way of writing a face, in labels and on the command line


def test_a_file_that_is_no_utf8_text_or_cut_short_is_said_so(tmp_path: Path) -> None:
    """A Latin-1 labels file, a boxes.csv row cut short and an impossible erratum ended in
    tracebacks; a byte-order mark before the header made its columns look missing."""
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "labels.csv").write_bytes(b"file,die_type,values\nw\xfcrfel.jpg,d6,3\n")
    with pytest.raises(DatasetError, match=r"labels.csv is not UTF-8 text \(byte 23\)"):
        read_dataset(folder)
    (folder / "labels.csv").write_bytes(b"\xef\xbb\xbffile,die_type,values\na.jpg,d6,3\n")
    assert [item.values for item in read_dataset(folder)] == [(3,)]  # a spreadsheet's BOM
    (folder / "boxes.csv").write_text("file,die,value,xmin,ymin,xmax,ymax\na.jpg,d6\n")
    with pytest.raises(DatasetError, match=r"boxes.csv row 2: .* must be numbers"):
        read_dataset(folder)
    (folder / "boxes.csv").write_text("file,die,value\na.jpg,d6,3\n")
    with pytest.raises(DatasetError, match="lacks xmin, ymin, xmax, ymax"):
        read_dataset(folder)
    (folder / "boxes.csv").write_text("file,die,value,xmin,ymin,xmax,ymax\na.jpg,d6,3,1,1,9,9\n")
    errata = tmp_path / "errata.csv"
    errata.write_text("file,xmin,ymin,xmax,ymax,labelled,seen\na.jpg,1,1,9,9,3,9\n")
    with pytest.raises(DatasetError, match=r"faces of its d6 \(seen 9, labelled 3\)"):
        apply_errata(read_dataset(folder), read_errata(errata))
    os.mkfifo(tmp_path / "fifo.csv")  # no writer: reading it would wait for ever
    with pytest.raises(DatasetError, match="is not a file"):
        read_errata(tmp_path / "fifo.csv")


def test_a_row_of_more_cells_than_the_header_is_named_not_cut_to_its_first_value(
    tmp_path: Path,
) -> None:
    """A row "a.jpg,d6,6,6" (values separated by commas) was read as one 6: the other cells
    were left out, and the figures were wrong without a word."""
    folder = _labels(tmp_path / "set", "a.jpg,d6,1;2", "b.jpg,d6,6,6")
    with pytest.raises(DatasetError) as err:
        read_dataset(folder)
    assert "labels.csv row 3 has more cells than the header (file, die_type, values); values" \
        " are separated by ';' (as 1;4;6)" in str(err.value)  # fmt: skip
    _labels(folder, "a.jpg,d6,1;2", "b.jpg,d6,6;6,, ")  # empty cells past the header: none lost
    assert [item.values for item in read_dataset(folder)] == [(1, 2), (6, 6)]
    (folder / "boxes.csv").write_text("file,value,xmin,ymin,xmax,ymax\na.jpg,1,1,1,9,9,5\n")
    with pytest.raises(DatasetError, match=r"boxes\.csv row 2 has more cells than the header"):
        read_dataset(folder)


def test_a_file_listed_twice_is_named_not_scored_twice(tmp_path: Path) -> None:
    folder = _labels(tmp_path / "set", "a.jpg,d6,1", "b.jpg,d6,2", "./a.jpg,d6,5")
    with pytest.raises(DatasetError) as err:
        read_dataset(folder)
    assert "labels.csv row 4 repeats the file ./a.jpg (first on row 2)" in str(err.value)


def test_an_unclosed_quote_and_blank_lines_are_said_by_their_line(tmp_path: Path) -> None:
    """A quote left open in a large set ran on past Python's 131,072 characters a cell (a
    traceback); a blank first line made the file "nothing (an empty file)"."""
    folder = tmp_path / "set"
    folder.mkdir()
    rows = "".join(f"{k}.jpg,d6,1;2;3;4;5;6\n" for k in range(8000))
    (folder / "labels.csv").write_text(f'file,die_type,values\na.jpg,d6,"3\n{rows}')
    with pytest.raises(DatasetError) as err:
        read_dataset(folder)
    assert "labels.csv line 2: field larger than field limit" in str(err.value)
    assert str(err.value).endswith("(an unclosed quote?)")
    (folder / "labels.csv").write_text("\nfile,die_type,values\n\na.jpg,d6,3\nb.jpg,d6,\n")
    with pytest.raises(DatasetError, match=r"labels\.csv row 5: no values"):  # its own line
        read_dataset(folder)
