"""Post-hoc calibration of class probabilities (corpuskit.enrich.calibration): temperature scaling
recovers a known distortion of exact posteriors; class offsets raise macro recall where the most
probable class starves a hard class, and stay at zero where nothing beats the most probable class."""
import numpy as np

from corpuskit.enrich.calibration import (Calibration, apply_calibration, apply_offsets, fit_class_offsets,
                                          fit_temperature, macro_recall)

MEANS = np.array([-1.5, 0.0, 1.5])


def _data(priors, n, seed, spread=(1.0, 1.0, 1.0)):
    """Points of three Gaussian classes on a line and their exact posteriors under ``priors``."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=priors)
    s = np.asarray(spread)
    x = rng.normal(MEANS[y], s[y])
    like = np.exp(-0.5 * ((x[:, None] - MEANS[None, :]) / s[None, :]) ** 2) / s[None, :]
    joint = like * np.asarray(priors)
    return joint / joint.sum(axis=1, keepdims=True), y


def _distort(p, temperature, bias):
    z = np.log(p) * temperature + np.asarray(bias)
    z -= z.max(axis=1, keepdims=True)
    return np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)


def test_temperature_undoes_overconfidence():
    exact, y = _data((0.3, 0.4, 0.3), 30_000, seed=3)
    over = _distort(exact, 2.5, (0, 0, 0))  # log-probabilities stretched: overconfident
    cal = fit_temperature(over, y, bias=False)
    assert abs(cal.temperature - 2.5) < 0.15
    assert not np.any(cal.bias)
    np.testing.assert_allclose(cal.priors, np.bincount(y, minlength=3) / len(y))
    fixed = apply_calibration(over, cal)
    np.testing.assert_allclose(fixed, exact, atol=0.03)


def test_bias_correction_undoes_a_shift_temperature_alone_cannot():
    exact, y = _data((0.3, 0.4, 0.3), 30_000, seed=4)
    shifted = _distort(exact, 0.6, (1.0, 0.0, -0.5))
    ts, bcts = fit_temperature(shifted, y, bias=False), fit_temperature(shifted, y, bias=True)
    assert abs(bcts.temperature - 0.6) < 0.05
    # the fitted bias undoes the shift, up to a constant (the last class's bias is fixed at zero)
    shift = np.array([1.0, 0.0, -0.5])
    np.testing.assert_allclose(bcts.bias, (shift[2] - shift) / 0.6, atol=0.15)
    nll = lambda p: -np.log(p[np.arange(len(y)), y]).mean()  # noqa: E731
    assert nll(apply_calibration(shifted, bcts)) < nll(apply_calibration(shifted, ts)) - 0.01
    np.testing.assert_allclose(apply_calibration(shifted, bcts), exact, atol=0.03)


def test_identity_calibration_and_empty_input():
    exact, _ = _data((0.3, 0.4, 0.3), 100, seed=1)
    same = apply_calibration(exact, Calibration(1.0, np.zeros(3), np.full(3, 1 / 3)))
    np.testing.assert_allclose(same, exact, atol=1e-9)
    assert apply_calibration(np.zeros((0, 3)), Calibration(2.0, np.zeros(3), np.full(3, 1 / 3))).shape == (0, 3)


def test_offsets_raise_macro_recall_of_a_rare_wide_class():
    # class 0 is rare and spread wide: the most probable class seldom picks it
    sets = [_data((0.08, 0.6, 0.32), 6000, seed=s, spread=(2.0, 1.0, 1.0)) for s in (11, 12)]
    plain = np.mean([macro_recall(y, p.argmax(axis=1), 3) for p, y in sets])
    offsets, score = fit_class_offsets([p for p, _ in sets], [y for _, y in sets])
    assert offsets[1] == 0.0 and offsets[0] > 0.3
    assert score > plain + 0.03
    assert np.isclose(score, np.mean([macro_recall(y, apply_offsets(p, offsets), 3) for p, y in sets]))
    # chosen on two sets, they help a third drawn the same way
    p3, y3 = _data((0.08, 0.6, 0.32), 6000, seed=13, spread=(2.0, 1.0, 1.0))
    assert macro_recall(y3, apply_offsets(p3, offsets), 3) > macro_recall(y3, p3.argmax(axis=1), 3) + 0.02


def test_offsets_stay_zero_when_the_argmax_is_already_best():
    # perfectly separable sets: every offset in a band around zero ties at macro recall 1; the tie goes to zero
    p = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]] * 5)
    y = np.array([0, 1, 2] * 5)
    offsets, score = fit_class_offsets([p], [y])
    assert score == 1.0 and not np.any(offsets)


def test_macro_recall_skips_absent_classes():
    assert macro_recall([0, 0, 2], [0, 1, 2], 3) == 0.75
