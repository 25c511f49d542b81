"""Unit tests of single encoding files (encoding/*.lp) on small fact programs."""
