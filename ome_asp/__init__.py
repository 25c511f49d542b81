"""ome-asp: an executable specification of OME's serving-runtime selection."""

__version__ = "0.1.0"
