"""What Job and Sweep share: an object of the backend as last read."""

import json


class Record:
    """``info`` is the object as last read, its JSON document (docs/api.md)."""

    def __init__(self, native, info):
        self._native = native
        self.info = info

    def __repr__(self):
        return f"<dlp.{type(self).__name__} {self.id} {self.state}>"

    @property
    def id(self):
        return self.info["id"]

    @property
    def state(self):
        """As last read."""
        return self.info["state"]

    @property
    def reason(self):
        return self.info.get("reason", "")

    def _update(self, text):
        self.info = json.loads(text)
        return self.state


def timeout_seconds(timeout):
    """A wait's timeout as dlp._native takes it: -1 for none."""
    return -1.0 if timeout is None else float(timeout)
