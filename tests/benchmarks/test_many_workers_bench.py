"""benchmarks.many_workers: the table of regret, duplicates and time per number of workers."""

from __future__ import annotations

import pytest

from benchmarks import many_workers


def test_the_table_gives_quartiles_of_the_regret_and_the_total_duplicates() -> None:
    one = [(0.1, 0, 10.0), (0.3, 0, 30.0), (0.2, 0, 20.0)]
    four = [(0.4, 1, 5.0), (1.0, 0, 6.0), (0.8, 2, 7.0), (0.6, 0, 8.0)]
    table = many_workers.report([(1, one), (4, four)], total=40)
    lines = table.splitlines()
    assert "after 40 trials" in lines[0]
    # one process: regrets 0.1, 0.2, 0.3 -> median 0.2, quartiles 0.15 and 0.25; 0 duplicates
    assert lines[2] == "| 1 | 40 | 0.2 [0.15, 0.25] | 0 | 20.0 |"
    # four processes: 0.4, 0.6, 0.8, 1.0 -> median 0.7, quartiles 0.55 and 0.85; 3 duplicates
    assert lines[3] == "| 4 | 10 | 0.7 [0.55, 0.85] | 3 | 6.5 |"


@pytest.mark.parametrize("flag", ["--workers", "--trials", "--seeds"])
def test_a_count_below_one_is_a_one_line_error(flag: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        many_workers.main([flag, "0"])
    assert exit_.value.code == 2
    assert "must be positive" in capsys.readouterr().err
