"""The statistics layer: the tests every detector and observation runs, defined once.

* :mod:`.count_model`: a count against its baseline (Gamma-Poisson predictive, one sigma);
* :mod:`.mean_model`: a period's mean against its baseline (sentiment shifts);
* :mod:`.z_scores`: the simple z tests of observations (robust, Poisson, binomial, mean, Welch);
* :mod:`.windows`: baseline windows and rolling/trailing sums;
* :mod:`.correction`: the sigma of the best of several looks (Šidák);
* :mod:`.threshold_search`: the smallest count whose score reaches a sigma;
* :mod:`.thresholds`: the sigma thresholds, severities and the surge ranges;
* :mod:`.intervals`: intervals for counts (Poisson), shares (Wilson), means (t) and a seeded bootstrap;
* :mod:`.comparisons`: two-sample tests of two counts (exact conditional), two shares (z or Fisher), two means (Welch).

It imports numpy, pandas and scipy only (no other corpuskit layer), so every
layer above may use it.
"""
