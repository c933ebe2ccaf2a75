"""xdist.ml: scikit-learn-compatible estimators written only against the Array API standard.

The estimators (KMeans, Lasso, Moments) arrive with their own issue; this package exists so
that the installed layout (``xdist.ml``) is fixed from the start.
"""
