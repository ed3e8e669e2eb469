"""Bin labels of the corpus pages name the whole counts each bin holds."""

from __future__ import annotations

from app.bin_labels import count_labels, difference_labels, integer_range, names_text, ratio_labels


def test_count_bins_name_their_integers_and_empty_bins_say_so() -> None:
    labels = count_labels(999)  # edges 10^(0.3 b) - 1: 0, 0.995, 2.98, 6.94, 14.8, 30.6, 62.1, ...
    assert labels[1] == "0" and labels[2] == "1–2" and labels[10] == "501–999"
    small = count_labels(2)  # narrow bins: most hold no whole count
    assert small == {1: "0", 7: "1", 10: "2"} | {b: "–" for b in (2, 3, 4, 5, 6, 8, 9)}
    assert list(count_labels(0).values()) == ["0"] + ["–"] * 9


def test_difference_bins_are_signed_and_symmetric() -> None:
    labels = difference_labels(999)
    assert labels[5] == "-1 … +1" and labels[1] == "-999 … -215" and labels[9] == "+215 … +999"
    assert labels[4] == "-9 … -2" and labels[6] == "+2 … +8"  # the bins are half-open: [low, high)


def test_ranges_ratios_and_hover_names() -> None:
    assert integer_range(0.2, 0.9, last=False) == "–" and integer_range(1, 3, last=True) == "1–3"
    assert ratio_labels()[10] == "0.9–1.0"
    assert names_text(["a", "<b>", "c"]) == "a, <b>, c"  # plain text: the tooltip shows it as it is
    assert names_text([str(i) for i in range(40)]) == ", ".join(str(i) for i in range(30)) + ", … (+10 more)"
    assert names_text("x, y") == "x, y" and names_text(None) == ""
