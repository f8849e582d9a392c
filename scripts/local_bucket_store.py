"""``make serve``'s bucket kept across restarts: every version of every object (its bytes, user
metadata, content type, ETag and version id) and the objects' tags, in one file of a folder that
git ignores.

moto keeps its state in memory only, so a restart (a new ``TOKENIZERS_DIR``, another
``CHUNKS_FORMAT``) used to lose every uploaded document and output. The file is moto's own objects,
pickled: a restored object is the one that was written, version id and ``LastModified`` included,
so the outputs' ``source.version_id`` still names it. It is written again whenever the bucket
changed (checked every second) and when ``make serve`` stops; a restored bucket sends no event, so
nothing is chunked again. Uploads still in progress (multipart) are not kept.
"""

import os
import pickle
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.s3.models import FakeBucket, S3Backend, s3_backends

EMPTY_TARGET = "make empty-local-bucket"


class StoredBucketError(Exception):
    """The kept bucket cannot be restored (written by another moto version, or damaged): its message
    says what to do, since starting empty would lose the user's objects silently."""


@dataclass(frozen=True)
class Snapshot:
    keys: dict[str, list[Any]]
    """Each key's versions, oldest first (moto's FakeKey and FakeDeleteMarker)."""
    tags: dict[str, Any]
    """moto's tag sets of those versions, by the ARN it gives each."""

    def signature(self) -> tuple[Any, ...]:
        """What changes when an object, a version or a tag is written or removed."""
        versions = tuple((key, tuple(v.version_id for v in found)) for key, found in self.keys.items())
        return versions, repr(sorted(self.tags.items()))


class BucketStore:
    def __init__(self, folder: Path, bucket_name: str) -> None:
        self.folder = folder
        self.bucket_name = bucket_name
        self.path = folder / f"{bucket_name}.pickle"
        self._saved: tuple[Any, ...] | None = None

    @staticmethod
    def _backend() -> S3Backend:
        return s3_backends[DEFAULT_ACCOUNT_ID]["aws"]

    def _bucket(self) -> FakeBucket:
        return self._backend().buckets[self.bucket_name]

    def _snapshot(self) -> Snapshot:
        # dict.copy and list() copy under the GIL, while moto's threads keep writing.
        keys = {key: list(found) for key, found in dict.copy(self._bucket().keys).items()}
        prefix = f"{self._bucket().arn}/"
        tags = {arn: tag for arn, tag in dict.copy(self._backend().tagger.tags).items() if arn.startswith(prefix)}
        return Snapshot(keys, tags)

    def restore(self) -> int:
        """Put the kept objects back into the (new, empty) bucket, before its notifications are
        configured: the number of keys restored."""
        if not self.path.exists():
            self._saved = self._snapshot().signature()  # nothing to write until something is
            return 0
        try:
            with self.path.open("rb") as stored:
                saved_by, snapshot = pickle.load(stored)  # noqa: S301 (this checkout's own file)
        except Exception as error:
            raise StoredBucketError(
                f"the local bucket kept in {self.path} cannot be read: {EMPTY_TARGET} empties it"
            ) from error
        if saved_by != version("moto"):
            raise StoredBucketError(
                f"the local bucket kept in {self.path} was written with moto {saved_by} (this is {version('moto')}): "
                f"copy out what you need with make serve where moto is {saved_by}, then {EMPTY_TARGET} empties it"
            )
        bucket = self._bucket()
        for key, found in snapshot.keys.items():
            bucket.keys.setlist(key, found)
        self._backend().tagger.tags.update(snapshot.tags)
        self._saved = snapshot.signature()
        return len(snapshot.keys)

    def save_if_changed(self) -> bool:
        """Write the bucket if it changed since it was last written or restored: whether it was."""
        try:
            snapshot = self._snapshot()
            signature = snapshot.signature()
        except RuntimeError:  # a version list changed while read: the next call sees it settled
            return False
        except KeyError:  # moto was reset (its /moto-api/reset): the bucket is gone, the file stays
            return False
        if signature == self._saved:
            return False
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        with partial.open("wb") as stored:
            pickle.dump((version("moto"), snapshot), stored, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, self.path)  # a kill mid-write leaves the previous file whole
        self._saved = signature
        return True
