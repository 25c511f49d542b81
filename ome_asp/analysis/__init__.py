"""Between the solver and the commands: the searches (steer's and compare's
edit searches, find's witness search; each verifies what it finds by selecting
again) and the answering of many queries at once (oracle.py: serve's and
check's reports of cases solved together as worlds; batch.py: a batch's
queries in chunks over processes)."""
