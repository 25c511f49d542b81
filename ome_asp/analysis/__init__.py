"""The searches over the solver: steer's and compare's edit searches, find's
witness search; each verifies what it finds by selecting again."""
