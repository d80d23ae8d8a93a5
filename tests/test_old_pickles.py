"""An estimator pickled by an earlier ercot-nb (module ``ercot_nb._evolutionary``) is refused in one line."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from ercot_nb import ERCOT, StaticEC


@pytest.mark.parametrize("cls", [ERCOT, StaticEC])
def test_an_estimator_pickled_by_an_earlier_version_is_refused_saying_what_to_do(cls):
    rng = np.random.default_rng(0)
    fitted = cls(**{**cls._unit_test_params(), "seed": 0}).fit([rng.normal(size=(20, 2)) for _ in range(2)])
    data = pickle.dumps(fitted, protocol=2)  # protocol 2: classes as text lines "module\nname\n"
    module = type(fitted).__module__.encode()
    assert module + b"\n" in data
    old = data.replace(module + b"\n", b"ercot_nb._evolutionary\n")  # what the earlier layout wrote
    with pytest.raises(ImportError) as caught:
        pickle.loads(old)
    message = str(caught.value)
    print(message)
    assert "\n" not in message and "before 2026-11-26" in message
    assert "result_.save" in message and "get_params" in message
    # this version's own pickles load
    assert pickle.loads(data).get_params() == fitted.get_params()
