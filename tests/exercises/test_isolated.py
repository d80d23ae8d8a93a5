"""The clean processes read notebook cells as IPython does: a magic in an answer is not an error."""
from __future__ import annotations

import numpy as np

from ercot_nb.exercises.isolated import call_in_clean_process, python_sources, values_in_clean_process

ANSWER_WITH_MAGICS = '''%time total = 1 + 1
!echo not run while grading
%env ERCOT_NB_VARIANT=7

def double(x):
    return float(2 * x.sum())
'''


def test_magics_become_calls_and_plain_python_is_unchanged():
    plain = "x = '%d' % 3\ny = 1 if x != '3' else 2\n"
    assert python_sources([plain]) == [plain]
    [magic] = python_sources(["%time y = 2\n"])
    assert "get_ipython()" in magic and "%" not in magic


def test_a_function_answer_with_magics_is_called():
    values, errors, setup = call_in_clean_process([ANSWER_WITH_MAGICS], "double", [[np.ones(3)]], timeout=60)
    assert setup == [] and errors == [None] and values == [6.0]


def test_a_value_answer_with_magics_is_replayed_and_env_magics_change_nothing():
    cells = ["%%time\nanswer = 40 + 2\n", ANSWER_WITH_MAGICS.replace("double", "triple"),
             "import os\nvariant = os.environ.get('ERCOT_NB_VARIANT')"]
    values, _, errors, _ = values_in_clean_process(cells, {"answer": "answer", "total": "total",
                                                           "variant": "variant"}, cell_limit=30)
    assert errors == [] and values["answer"] == 42 and values["total"] == 2 and values["variant"] is None
