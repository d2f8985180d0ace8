"""The older forms of the market's settings, read into the current ones.

Before a mechanism or learning rule took parameters, ``market.reputation_mechanism`` and
``market.reputation_decay`` named the mechanism and the decay's rate, and
``market.learning_rule`` the rule. Before attacks had one name, ``market.behaviours`` gave
each attacking seat ``{ behaviour = "...", params = {...} }``. They are read into
``market.reputation = { mechanism, params }``, ``market.learning = { rule }`` and
``market.attacks = { P4 = { attack, params } }`` with a ``DeprecationWarning`` naming the
new form (``read_older``), so one setting has one field.

Runs stored under an older form recorded the hash of that form, and a reproduce named their
directories by it. ``older_markets`` gives the market settings as each older form wrote the
same settings (``RunConfig.older_digests``), so that ``recmarket migrate`` can tell such a
run and rewrite it once in the current form; a lookup finds a run by its current hash alone.
The older forms are read until ``deprecation.REMOVED_IN``.
"""

from __future__ import annotations

import itertools
from typing import Any

from recmarket.catalogue.mechanisms import mechanism
from recmarket.deprecation import warn_older

# The older fields and their defaults (a field at its default was left out of the hash).
MECHANISM, DECAY, RULE = "reputation_mechanism", "reputation_decay", "learning_rule"
DEFAULTS: dict[str, Any] = {MECHANISM: "window", DECAY: 0.8, RULE: "thompson"}
# The attacks' older field, and the older key of each seat's attack in it.
BEHAVIOURS, BEHAVIOUR = "behaviours", "behaviour"


def read_older(market: Any) -> Any:
    """``market`` (settings as given) with its older fields read into the current ones; a
    ``DeprecationWarning`` names what to write instead. A setting given in both forms is
    refused: which one was meant cannot be told."""
    if not isinstance(market, dict) or not (DEFAULTS.keys() | {BEHAVIOURS}) & market.keys():
        return market
    market = dict(market)
    if BEHAVIOURS in market:
        if market.get("attacks"):
            raise ValueError(
                "market.attacks names each seat's attack; drop market.behaviours (the older "
                "form of the same setting)"
            )
        market["attacks"] = _attacks_from(market.pop(BEHAVIOURS))
        _warn(BEHAVIOURS, 'market.attacks = { P4 = { attack = "...", params = {...} } }')
    named, decay = market.pop(MECHANISM, None), market.pop(DECAY, None)
    if named is not None or decay is not None:
        if market.get("reputation") is not None:
            raise ValueError(
                "market.reputation names the mechanism and its parameters; drop "
                f"{MECHANISM} and {DECAY} (the older form of the same setting)"
            )
        if decay is not None and not 0.0 < float(decay) < 1.0:
            raise ValueError(f"{DECAY} must lie between 0 and 1 (exclusive), not {decay}")
        name = named or DEFAULTS[MECHANISM]
        params = mechanism(str(name)).legacy(float(decay)) if decay is not None else {}
        if name != DEFAULTS[MECHANISM] or params:
            market["reputation"] = {"mechanism": name, "params": params}
        _warn(f"{MECHANISM}/{DECAY}", 'market.reputation = { mechanism = "...", params = {...} }')
    rule = market.pop(RULE, None)
    if rule is not None:
        if market.get("learning") is not None:
            raise ValueError(
                "market.learning names the rule and its parameters; drop learning_rule (the "
                "older form of the same setting)"
            )
        if rule != DEFAULTS[RULE]:
            market["learning"] = {"rule": rule}
        _warn(RULE, 'market.learning = { rule = "..." }')
    return market


def _attacks_from(behaviours: Any) -> Any:
    """The older ``{ seat: { behaviour, params } }`` as ``{ seat: { attack, params } }``;
    anything else is passed on for the settings' own validation to name."""
    if not isinstance(behaviours, dict):
        return behaviours
    return {
        seat: {("attack" if k == BEHAVIOUR else k): v for k, v in setting.items()}
        if isinstance(setting, dict)
        else setting
        for seat, setting in behaviours.items()
    }


def _warn(older: str, newer: str) -> None:
    warn_older(
        f"market.{older} is the older form of a setting; write {newer} (`recmarket migrate "
        "DIR` rewrites settings files and stored runs once)"
    )


def older_markets(market: dict[str, Any]) -> list[dict[str, Any]]:
    """The market settings (as hashed: fields at their later-added defaults left out) as
    each older form wrote them, one per mix of forms that could express them; empty when
    only the current form can."""
    each = (_older_reputation(market), _older_learning(market), _older_attacks(market))
    forms = [f for f in each if f is not None]
    found = []
    for count in range(1, len(forms) + 1):
        for chosen in itertools.combinations(forms, count):
            older = market
            for form in chosen:
                older = form(older)
            found.append(older)
    return found


def _older_reputation(market: dict[str, Any]) -> Any:
    setting = market.get("reputation")
    if setting is None:
        return None
    name, params = setting["mechanism"], setting.get("params") or {}
    if not set(params) <= set(mechanism(name).legacy(DEFAULTS[DECAY])):
        return None  # parameters the older form had no field for
    decay = next(iter(params.values()), DEFAULTS[DECAY])
    older = {MECHANISM: name, DECAY: decay}
    fields = {k: v for k, v in older.items() if v != DEFAULTS[k]}
    return lambda m: _replaced(m, "reputation", fields)


def _older_learning(market: dict[str, Any]) -> Any:
    setting = market.get("learning")
    if setting is None or setting.get("params"):
        return None
    fields = {RULE: setting["rule"]} if setting["rule"] != DEFAULTS[RULE] else {}
    return lambda m: _replaced(m, "learning", fields)


def _older_attacks(market: dict[str, Any]) -> Any:
    setting = market.get("attacks")
    if not setting:
        return None
    older = {
        seat: {(BEHAVIOUR if k == "attack" else k): v for k, v in attack.items()}
        for seat, attack in setting.items()
    }
    return lambda m: _replaced(m, "attacks", {BEHAVIOURS: older})


def _replaced(market: dict[str, Any], current: str, fields: dict[str, Any]) -> dict[str, Any]:
    """``market`` with the ``current`` field replaced, in place, by the older ``fields``
    (declared right before it), so that its JSON is the older form's, byte for byte."""
    out: dict[str, Any] = {}
    for key, value in market.items():
        if key == current:
            out |= fields
        else:
            out[key] = value
    return out
