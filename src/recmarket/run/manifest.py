"""What makes a run this run, as its store's manifest records it: the store's schema, the
settings and their hash, the roles answered from outside recmarket, and the code of the
variants from outside it. A store is resumed only by the same identity (``RunIdentity``);
anything else is a ``RunConflict`` saying what differs.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recmarket import __version__
from recmarket.config import RunConfig
from recmarket.data.fingerprint import changed_files, digests, domains_read, read_digests
from recmarket.data.sources import demo_users
from recmarket.run.provenance import (
    changed_variants,
    checkout_dirty,
    git_commit,
    installed_packages,
    outside_variants,
    own_code_digest,
)

# 2: episodes.target_best_fit; one compressed call array per episode. 3: top1_platform,
# regret, the adaptive seats' lessons (lessons; strategy then). 4: purchased_platform, the names
# seats showed when not their own (identities), the seats shown (shown_platforms) and the
# records written after an episode besides its own (written: forged, or an oracle's). 5: an
# offline run keeps the role calls of only the first episodes of each domain (the rest are
# played again when asked for: run/replay.py); its episodes are those of schema 4. 6: the
# faster engine plays episodes with other draws (keyed retrieval and shuffle draws, role
# generators keyed by BLAKE2b, a decision's draw without numpy's checks): a store of an
# earlier schema holds another engine's episodes, which this one reads but cannot resume
# or play again. 7: the offline model of issue 45 (Exaggeration's claim pulled toward a
# perfect one, Mixed records below the prior, the oracle's records with a direction), and
# the families that proposed the target (target_policies) and the Top-1 item (top1_item),
# the accountability chain's links. 8: a history without the earlier reviews of its target's
# own item (data.episodes), so the same settings give other episodes where people re-review.
# 9: the target's place by judged fit in its pool (target_fit_rank) and the beliefs at which
# it would be the Top-1 (target_top1_grid, market.belief_grid), the request's buyer
# wording, product kinds read before their trailing qualifiers, High records at the prior and
# the Rep instruction read by the offline ranker (issue 63). 10: where seats rewrite their
# listings (market.copy), whether the Top-1 and the bought proposal were rewritten and the
# unsupported words the rewrites added (top1_rewritten, bought_rewritten, words_unsupported).
SCHEMA_VERSION = 10


class RunConflict(RuntimeError):
    """The output directory holds a run made with another configuration."""


class CodeChanged(UserWarning):
    """A run is resumed by other recmarket code than made its stored episodes: another
    commit, or an edited checkout. The settings and plugins are the same, so it goes on,
    but an engine edit could make its later episodes differ from an uninterrupted run's."""


def code_changes(manifest: dict[str, str]) -> str:
    """How this process's recmarket code differs from the one that made a store, in words;
    empty when it does not (or the store recorded too little to say)."""
    then_digest, now_digest = manifest.get("code_digest", ""), own_code_digest()
    then_commit, now_commit = manifest.get("git_commit", ""), git_commit() or ""
    if then_digest:
        if then_digest == now_digest:
            return ""
    elif not (then_commit and now_commit and then_commit != now_commit):
        return ""
    what = [f"source {then_digest[:12] or '?'} -> {now_digest[:12]}"]
    if then_commit != now_commit:
        what.append(f"commit {then_commit[:10] or '?'} -> {now_commit[:10] or '?'}")
    if checkout_dirty():
        what.append("the checkout has uncommitted changes")
    return (
        f"resuming with other recmarket code than made the stored episodes ({', '.join(what)}); "
        "an engine change can make the rest differ from an uninterrupted run's"
    )


def made_by(manifest: dict[str, str]) -> str:
    """The recmarket that made a store, as its manifest says: version and commit."""
    version = manifest.get("version", "")
    commit = manifest.get("git_commit", "")[:10]
    made = " at ".join(x for x in (f"recmarket {version}" if version else "", commit) if x)
    return made or "an unrecorded recmarket"


def other_engine(manifest: dict[str, str]) -> str:
    """What to say of a store of another schema: which recmarket made it, and that only that
    version can go on with it (its episodes are another engine's)."""
    version = manifest.get("version", "")
    commit = manifest.get("git_commit", "")[:10]
    finish = f"pip install 'recmarket=={version}'" if version else "that version"
    if commit:
        finish += f" or a checkout of {commit}"
    return (
        f"holds a run of store schema {manifest.get('schema')} made by {made_by(manifest)}, "
        f"whose engine plays episodes differently from this one (schema {SCHEMA_VERSION}); "
        f"finish it with {finish}"
    )


# A kind's older name in stored manifests -> its name now.
RENAMED_KINDS = {"platform behaviour": "attack"}


def stored_variants(manifest: dict[str, str]) -> dict[str, dict[str, str]]:
    """The outside variants a stored run used (none, for a store made before they were
    recorded), each under its kind's current name."""
    found = {}
    for key, origin in json.loads(manifest.get("variants", "{}")).items():
        for older, now in RENAMED_KINDS.items():
            if key.startswith(f"{older} "):
                key = f"{now} {key.removeprefix(f'{older} ')}"
        found[key] = origin
    return found


def stored_config(manifest: dict[str, str]) -> RunConfig:
    """The settings a store recorded, read as this version reads settings: a store made
    under an older form of a setting is read in the current one, without the warning its
    user cannot act on (the settings were theirs when the run was made)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return RunConfig.model_validate_json(manifest["config"])


def stored_roles(manifest: dict[str, str]) -> dict[str, str]:
    """The roles a stored run had answered from outside recmarket (none, as far as a store
    made before roles were recorded can say)."""
    return dict(json.loads(manifest.get("roles", "{}")))


def _describe(roles: dict[str, str]) -> str:
    if not roles:
        return "recmarket's own backends"
    return ", ".join(f"{role}: {who}" for role, who in sorted(roles.items()))


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    diffs = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            diffs.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return diffs


def files_read(config: RunConfig) -> tuple[Path, ...]:
    """The user's data files a run of ``config`` reads (none for the bundled demo, which
    recmarket's code digest covers, nor a demo:N market, whose generator the hash covers)."""
    if config.data is None or demo_users(config.data) is not None:
        return ()
    return tuple(domains_read(config.data, config.domains))


@dataclass(frozen=True)
class RunIdentity:
    """A run as its manifest records it: the settings (and their hash, computed once), the
    roles answered from outside recmarket (``Agents.identity``), the outside variants'
    code and the content of the data files it reads (``data.fingerprint``)."""

    config: RunConfig
    roles: dict[str, str]
    variants: dict[str, dict[str, str]]
    data_files: tuple[Path, ...] = ()
    digest: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", self.config.digest())

    def hashes_as(self, manifest: dict[str, str]) -> bool:
        """Whether a manifest's settings hash is these settings' (a run stored under an
        older form of its settings is found once ``recmarket migrate`` has rewritten it)."""
        return manifest.get("config_hash") == self.digest

    @classmethod
    def of(cls, config: RunConfig, roles: dict[str, str] | None = None) -> RunIdentity:
        """The identity of a run of ``config`` with these outside roles, in this process."""
        return cls(config, dict(roles or {}), outside_variants(config), files_read(config))

    def data_changes(self, manifest: dict[str, str]) -> str:
        """Which data files hold other bytes than when ``manifest`` was written, in words
        naming each; empty when none does, or the store recorded none (made before data
        was recorded, or over data that has no files of the user's)."""
        if "data_files" not in manifest:
            return ""
        try:
            recorded = read_digests(manifest["data_files"])
        except ValueError as error:
            return str(error)
        where = Path(str(self.config.data or "."))
        return changed_files(recorded, digests(self.data_files, recorded), where)

    def recorded_in(self, manifest: dict[str, str]) -> bool:
        """Whether ``manifest`` records exactly this run, of this store schema."""
        return (
            manifest.get("schema") == str(SCHEMA_VERSION)
            and self.hashes_as(manifest)
            and stored_roles(manifest) == self.roles
            and stored_variants(manifest) == self.variants
            and not self.data_changes(manifest)
        )

    def refuse_another(self, manifest: dict[str, str], out_dir: Path) -> None:
        """``RunConflict`` unless ``manifest`` is this run's: schema, settings, the roles
        answered from outside and the code of outside variants."""
        if manifest.get("schema") != str(SCHEMA_VERSION):
            raise RunConflict(f"{out_dir} {other_engine(manifest)}, or choose another --out")
        elif not self.hashes_as(manifest):
            old = json.loads(stored_config(manifest).model_dump_json())
            diffs = _differences(old, json.loads(self.config.model_dump_json()))
            if not diffs and manifest.get("config_hash") in self.config.older_digests():
                raise RunConflict(
                    f"{out_dir} holds a run of these settings stored under an older form of "
                    f"them; run `recmarket migrate {out_dir}` once, then resume it"
                )
            if not diffs:  # the same settings, hashed with another reader or generator
                raise RunConflict(
                    f"{out_dir} holds a run of these settings whose data another version of "
                    "recmarket's review reader or demo generator made (its episodes would "
                    "differ); choose another --out, or resume it with the version that made it"
                )
            raise RunConflict(
                f"{out_dir} holds a run with a different configuration ("
                + "; ".join(diffs[:5])
                + ("; ..." if len(diffs) > 5 else "")
                + "); rerun with the same settings to resume it, or choose another --out"
            )
        elif stored_roles(manifest) != self.roles:
            raise RunConflict(
                f"{out_dir} holds a run whose roles were answered by "
                f"{_describe(stored_roles(manifest))}, and this run's are answered by "
                f"{_describe(self.roles)}; rerun with the same roles to resume it, or choose "
                "another --out"
            )
        elif changes := changed_variants(stored_variants(manifest), self.variants):
            raise RunConflict(
                f"{out_dir} holds episodes made by other plugin code than this process has "
                f"({changes}); install the version the run was made with to resume it, or "
                "choose another --out"
            )
        elif changes := self.data_changes(manifest):
            raise RunConflict(
                f"{out_dir} holds episodes made from other data than the run reads now "
                f"({changes}); restore the files the run was made from to resume it, or "
                "choose another --out"
            )
        if moved := code_changes(manifest):
            warnings.warn(f"{out_dir}: {moved}", CodeChanged, stacklevel=3)

    def manifest(self) -> dict[str, str]:
        """What a new store's manifest records of this run, and of what made it."""
        dirty = checkout_dirty()
        return {
            "roles": json.dumps(self.roles, sort_keys=True),
            "variants": json.dumps(self.variants, sort_keys=True),
            "packages": json.dumps(
                installed_packages(tuple(v["distribution"] for v in self.variants.values()))
            ),
            "git_dirty": "" if dirty is None else str(dirty).lower(),
            "schema": str(SCHEMA_VERSION),
            "config": self.config.model_dump_json(),
            "config_hash": self.digest,
            "seed": str(self.config.seed),
            "version": __version__,
            "git_commit": git_commit() or "",
            "code_digest": own_code_digest(),
            "data_files": json.dumps(
                {name: d.model_dump() for name, d in digests(self.data_files).items()},
                sort_keys=True,
            ),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }
