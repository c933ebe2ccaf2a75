"""xdist.ml: scikit-learn-compatible estimators written only against the Array API standard.

Every estimator takes ``xp = array_api_compat.array_namespace(X)`` and uses nothing but the
standard's functions, so the same code runs on NumPy, array-api-strict, PyTorch, CuPy and
distributed xdist arrays (split along samples):

- ``xdist.ml.cluster.KMeans``: Lloyd's k-means with k-means++ seeding;
- ``xdist.ml.linear_model.Lasso``: L1-regularized least squares by coordinate descent;
- ``xdist.ml.stats``: ``Moments`` (streaming per-feature moments, a standardizing
  transformer) and ``mean``, ``var``, ``std``, ``skew``, ``kurtosis``, ``moment``.

scikit-learn is a dependency of this part (``pip install 'xdist-array[ml]'``).
"""

from . import cluster, linear_model, stats
from .cluster import KMeans
from .linear_model import Lasso
from .stats import Moments

__all__ = ["cluster", "linear_model", "stats", "KMeans", "Lasso", "Moments"]
