"""A Map's expected behaviour as a dict: its contents, and the status each
operation of a serial order must report (the differential tests' model)."""

from gpuhash import Operation, Status


class DictModel:
    """Keys and values in whatever hashable form a test compares them by
    (ints, bytes); `reserved` are the keys the table answers invalid_key for."""

    def __init__(self, reserved):
        self.pairs = {}
        self.reserved = set(reserved)

    def run(self, op, key, value):
        """Applies one operation; returns its status and the value a search found."""
        if key in self.reserved:
            return Status.invalid_key, None
        present = key in self.pairs
        if op == Operation.search:
            return (Status.found, self.pairs[key]) if present else (Status.not_found, None)
        if op == Operation.insert:
            if present:
                return Status.exists, None
            self.pairs[key] = value
            return Status.inserted, None
        if op == Operation.update:
            if not present:
                return Status.not_found, None
            self.pairs[key] = value
            return Status.updated, None
        if op == Operation.upsert:
            self.pairs[key] = value
            return (Status.updated if present else Status.inserted), None
        if present:
            del self.pairs[key]
            return Status.erased, None
        return Status.not_found, None
