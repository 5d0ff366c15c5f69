"""Keys of one workspace: prefixed by its team in a multi-workspace install, as before without one."""

from __future__ import annotations

import pytest

from bot.store.workspace import scoped, team_prefix


def test_the_single_workspace_install_keeps_its_keys() -> None:
    assert scoped(None, "ledger:C0123:2026-08-04") == "ledger:C0123:2026-08-04"


def test_a_team_s_keys_carry_its_id_and_share_one_prefix() -> None:
    key = scoped("T0ACME", "ledger:C0123:2026-08-04")
    assert key == "team:T0ACME:ledger:C0123:2026-08-04" and key.startswith(team_prefix("T0ACME"))


@pytest.mark.parametrize("team", ["", "T0:evil", "t0acme", "T0ACME*"])
def test_a_team_id_that_could_reach_another_s_keys_is_refused(team: str) -> None:
    with pytest.raises(ValueError):
        scoped(team, "ledger:C0123:2026-08-04")
