"""The public API: one import gives what scripts build on, each name documented."""

import dataclasses
import inspect

import pytest

import recmarket.api as api


def test_every_public_name_is_there_and_documented_in_its_own_words() -> None:
    undocumented = []
    for name in api.__all__:
        obj = getattr(api, name)
        doc = obj.__doc__ if (inspect.isclass(obj) or callable(obj)) else type(obj).__doc__
        generated = (
            inspect.isclass(obj)
            and dataclasses.is_dataclass(obj)
            and ((doc or "").startswith(f"{obj.__name__}("))
        )
        if not doc or not doc.strip() or generated:
            undocumented.append(name)
    assert not undocumented


class FirstK:
    """Shortlists the first K candidates as shown."""

    async def __call__(self, inp: api.ShortlistInput, seed: int) -> api.Shortlist:
        return api.Shortlist(
            ranked=tuple(
                api.RankedItem(platform_id=c.platform_id, reason="first come")
                for c in inp.candidates[: inp.k]
            )
        )


def test_the_api_runs_a_cell_with_a_role_of_ones_own(tmp_path) -> None:
    cfg = api.RunConfig(domains=("Video_Games",), episodes={"requests": 6})
    agents = api.offline_agents(api.load_embedder(cfg.embedder), cfg.agents)
    result = api.run(cfg, tmp_path / "r", agents=dataclasses.replace(agents, shortlist=FirstK()))
    assert len(result.store.episodes()) == 6
    assert result.store.manifest()["roles"] == '{"shortlist": "tests.test_api.FirstK"}'
    result.store.close()


def test_a_misspelt_option_is_refused_before_anything_plays(tmp_path) -> None:
    with pytest.raises(TypeError, match="budgt"):
        api.reproduce(["market-opening"], tmp_path / "r", scale=0.01, budgt=5.0)
    assert not (tmp_path / "r").exists()
    with pytest.raises(ValueError, match="budget -1"):
        api.reproduce(["market-opening"], tmp_path / "r", scale=0.01, budget=-1)
