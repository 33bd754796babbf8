"""Sign-in throttling: guesses are slowed where they come from, and the
owner of a login always gets through with the right password.

The service is served over real HTTP, by uvicorn with `serve`'s settings:
a `plpuzzle sudoku serve` process, or (AppServer) the same application in
a thread of the test, where the guard's clock is the test's: a wait the
service asks for is stepped over, not slept out, and a hold lasts until
the test steps past it, however slowly the machine runs. Each client
binds a loopback address of its own (127.0.0.2, 127.0.0.3 ...), which is
the address the service counts (only 127.0.0.1, the proxy's place, may
name another by X-Forwarded-For). No assertion on how long anything
took: waits are generous bounds.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from once_per_run import once_per_run
from service_kit import (
    PASSWORD,
    AppServer,
    ManualClock,
    Server,
    api_tokens,
    make_course,
    wait_for,
)

from plpuzzle.sudoku.service.guard import BUSY, BY_CLIENT, SignInGuard, client_key, login_key

ELSEWHERE = "for this login from elsewhere"
HERE = "for this login from your address"


class Browser:
    """A browser at loopback address `address`: keeps the device cookie
    the service gives it, and its session."""

    def __init__(self, url: str, address: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=120,
                                 transport=httpx.HTTPTransport(local_address=address))  # fmt: skip
        self.device = ""
        self.session = ""

    def sign_in(self, login: str, password: str, **headers: str) -> httpx.Response:
        """The sign-in form filled in and sent, as the page gives it."""
        self.http.cookies.clear()
        page = self.http.get("/signin")
        found = re.search(r'name="pre" value="([^"]+)"', page.text)
        assert found, page.text[:300]
        cookies = {"plpuzzle_pre": page.cookies["plpuzzle_pre"]}
        if self.device:
            cookies["plpuzzle_device"] = self.device
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        form = {"login": login, "password": password, "pre": found.group(1)}
        r = self.http.post("/signin", data=form, headers=headers, follow_redirects=False)
        self.http.cookies.clear()
        if r.status_code == 303:
            self.session = r.cookies["plpuzzle_session"]
            self.device = r.cookies.get("plpuzzle_device") or self.device
        return r

    def get(self, path: str) -> httpx.Response:
        return self.http.get(path, headers={"Cookie": f"plpuzzle_session={self.session}"})


def api_sign_in(url: str, address: str, login: str, password: str,
                device: str = "") -> httpx.Response:  # fmt: skip
    """`plpuzzle sudoku login`'s request, from `address`."""
    with httpx.Client(base_url=url, timeout=120,
                      transport=httpx.HTTPTransport(local_address=address)) as http:  # fmt: skip
        return http.post("/api/tokens", data={"login": login, "password": password,
                                              "device": device})  # fmt: skip


def login_command(url: str, config: Path) -> subprocess.CompletedProcess[str]:
    """`plpuzzle sudoku login URL` as alice, with its tokens kept under `config`."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    return subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "login", url],
                          input=f"alice\n{PASSWORD}\n", capture_output=True, text=True,
                          timeout=300, env=env)  # fmt: skip


def guess_until_held(guess: Callable[[], httpx.Response], seconds: int,
                     clock: ManualClock) -> list[httpx.Response]:  # fmt: skip
    """Wrong guesses, each after the wait the last answer asked for (the
    guard's clock moved past it), until a try must wait `seconds` or more;
    the answers."""
    answers: list[httpx.Response] = []
    while len(answers) < 100:
        r = guess()
        answers.append(r)
        if r.status_code == 429:
            wait = int(r.headers["retry-after"])
            if wait >= seconds:
                return answers
            clock.advance(wait)
    raise AssertionError([r.status_code for r in answers])


def refused(r: httpx.Response, why: str) -> bool:
    return r.status_code == 429 and why in r.text and int(r.headers["retry-after"]) >= 1


@pytest.fixture(scope="module")
def accounts(request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """The course and its 23 accounts, made once in the run (once_per_run):
    each password is an argon2 hash, which is what makes them slow to make.
    Each test works on a copy (`course`)."""

    def make(base: Path) -> tuple[Path, Path]:
        course, data = make_course(base / "course"), base / "data"
        api_tokens(course, data, ["alice", "bob", *(f"s{n:02}" for n in range(20))])
        return course, data

    return once_per_run(request, make)


@pytest.fixture
def course(accounts: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the module's course and accounts of the test's own: its
    service's sign-ins and throttling are kept apart from the others'."""
    return shutil.copytree(accounts[0], tmp_path / "course"), shutil.copytree(
        accounts[1], tmp_path / "data"
    )


def test_a_guesser_elsewhere_does_not_keep_the_owner_out(course: tuple[Path, Path]) -> None:
    with AppServer(*course) as server:
        owner, attacker = Browser(server.url, "127.0.0.3"), Browser(server.url, "127.0.0.2")
        # The attacker guesses at alice, naming another address each time
        # (not a proxy: not believed) and writing the login in other ways
        # (one login all the same): held on alice from there.
        n = iter(range(1000))
        names = ["alice", "ALICE", " alice ", "Alice"]

        def guess() -> httpx.Response:
            i = next(n)
            return attacker.sign_in(names[i % 4], "a-wrong-guess", **{
                "X-Forwarded-For": f"10.1.2.{i % 250}"})  # fmt: skip

        answers = guess_until_held(guess, 8, server.clock)
        codes = [r.status_code for r in answers]
        assert codes[:5] == [401] * 5 and codes.count(401) <= 9, codes
        assert refused(answers[-1], HERE)
        assert refused(attacker.sign_in("alice", PASSWORD), HERE)  # held before the password
        # The owner, elsewhere, gets in; the browser gets a device cookie.
        r = owner.sign_in("alice", PASSWORD)
        assert r.status_code == 303 and owner.device and owner.get("/me").status_code == 200
        # The owner's browser at the attacker's own address gets in too.
        visiting = Browser(server.url, "127.0.0.2")
        visiting.device = owner.device
        assert visiting.sign_in("alice", PASSWORD).status_code == 303
        # ... and that did not let the attacker in again there.
        assert refused(attacker.sign_in("alice", "another-guess"), HERE)
        # Bob's device cookie, alice's forged, or hers for bob: worth nothing.
        bob = Browser(server.url, "127.0.0.4")
        assert bob.sign_in("bob", PASSWORD).status_code == 303
        value, sig = owner.device.rsplit(".", 1)
        for cookie in (bob.device, f"{value}.{sig[::-1]}", owner.device.replace("alice", "bob")):
            attacker.device = cookie
            assert refused(attacker.sign_in("alice", PASSWORD), HERE), cookie
        # The attacker's other logins are not held by alice's.
        attacker.device = ""
        assert attacker.sign_in("s00", PASSWORD).status_code == 303


@pytest.mark.slow
def test_a_login_guessed_at_from_many_addresses_lets_its_owner_through(
    course: tuple[Path, Path], tmp_path: Path,
) -> None:  # fmt: skip
    with AppServer(*course) as server:
        owner = Browser(server.url, "127.0.0.3")
        assert owner.sign_in("alice", PASSWORD).status_code == 303  # before: a device cookie
        terminal = api_sign_in(server.url, "127.0.0.5", "alice", PASSWORD).json()
        assert terminal["login"] == "alice" and terminal["token"].startswith("plp_")
        # Guesses from many addresses, three each: the login is held for
        # clients it does not know, however many addresses they have.
        guessers = [Browser(server.url, f"127.0.2.{n}") for n in range(1, 41)]
        turn = iter(range(120))

        def guess() -> httpx.Response:
            return guessers[next(turn) // 3].sign_in("alice", "a-wrong-guess")

        answers = guess_until_held(guess, 32, server.clock)
        assert refused(answers[-1], ELSEWHERE)
        assert [r.status_code for r in answers].count(401) <= 16
        # While it is held (its clock stands still): others, without the
        # owner's device cookie, are refused before their password is checked.
        fresh = Browser(server.url, "127.0.0.30")
        assert refused(fresh.sign_in("alice", PASSWORD), ELSEWHERE)
        r = api_sign_in(server.url, "127.0.0.31", "alice", PASSWORD)
        assert r.status_code == 429 and ELSEWHERE in r.json()["error"]
        bobs = api_sign_in(server.url, "127.0.0.6", "bob", PASSWORD).json()["device"]
        r = api_sign_in(server.url, "127.0.0.32", "alice", PASSWORD, bobs)
        assert r.status_code == 429 and ELSEWHERE in r.json()["error"]
        # Not the owner: the browser with its device cookie, anywhere; the
        # address the owner signed in from; the terminal with the device
        # value its last sign-in gave.
        fresh.device = owner.device
        assert fresh.sign_in("alice", PASSWORD).status_code == 303
        assert Browser(server.url, "127.0.0.3").sign_in("alice", PASSWORD).status_code == 303
        again = api_sign_in(server.url, "127.0.0.32", "alice", PASSWORD, terminal["device"])
        assert again.status_code == 201 and again.json()["device"]
        # `plpuzzle sudoku login` sends what it kept (from 127.0.0.1, new to alice).
        config = tmp_path / "config"
        (config / "plpuzzle").mkdir(parents=True)
        kept = {"token": terminal["token"], "login": "alice", "device": terminal["device"]}
        tokens = config / "plpuzzle" / "tokens.json"
        tokens.write_text(json.dumps({"servers": {server.url: kept}}))
        run = login_command(server.url, config)
        assert run.returncode == 0, run.stderr
        kept = json.loads((config / "plpuzzle" / "tokens.json").read_text())["servers"]
        assert kept[server.url]["device"] not in ("", terminal["device"])
        # The login was held all along: the owner's ways through were tried.
        assert refused(Browser(server.url, "127.0.0.33").sign_in("alice", PASSWORD), ELSEWHERE)
        # 127.0.0.1 is known to alice now: a terminal there without a device value.
        without = login_command(server.url, tmp_path / "new")
        assert without.returncode == 0, without.stderr


@pytest.mark.slow
def test_the_right_password_with_a_device_cookie_goes_first_in_a_flood(
    course: tuple[Path, Path],
) -> None:  # fmt: skip
    with Server(*course, 1) as server:
        owner, known = Browser(server.url, "127.0.0.3"), Browser(server.url, "127.0.0.4")
        assert owner.sign_in("alice", PASSWORD).status_code == 303
        known.sign_in("bob", PASSWORD)
        known.device = ""  # bob comes back without his cookie: his address is known
        stop, busy, answers = threading.Event(), [0], [0]

        def flood(n: int) -> None:
            """Wrong guesses at the other students from an address of its own."""
            who = Browser(server.url, f"127.0.1.{n}")
            i = n
            while not stop.is_set():
                r = who.sign_in(f"s{i % 20:02}", "a-wrong-guess")
                i += 1
                answers[0] += 1
                busy[0] += BUSY in r.text

        threads = [threading.Thread(target=flood, args=(n,)) for n in range(1, 25)]
        for thread in threads:
            thread.start()
        try:
            wait_for("the lane full", 120, lambda: busy[0] >= 5)
            assert owner.sign_in("alice", PASSWORD).status_code == 303
            assert known.sign_in("bob", PASSWORD).status_code == 303
            assert busy[0] < answers[0]  # some guesses were checked all the same
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=300)


def test_an_unknown_login_costs_no_hash(course: tuple[Path, Path]) -> None:
    with AppServer(*course) as server:
        tina, guesser = Browser(server.url, "127.0.0.5"), Browser(server.url, "127.0.0.6")
        assert tina.sign_in("tina", PASSWORD).status_code == 303

        def counts() -> tuple[int, int]:
            page = tina.get("/status").text
            found = re.search(r'class="checked">(\d+)</span> passwords checked, (\d+) for', page)
            assert found, page[:2000]
            return int(found.group(1)), int(found.group(2))

        checked, pretended = counts()
        for login in ("nobody", "ALICE", "alice2", "s00 s01", "x" * 64, "\uff42\uff4f\uff42"):
            r = guesser.sign_in(login, PASSWORD)
            assert r.status_code == 401 and "wrong login or password" in r.text
        assert counts() == (checked, pretended + 6)
        assert guesser.sign_in("alice", "a-wrong-guess").status_code == 401
        assert counts() == (checked + 1, pretended + 6)
        # Unknown logins are guesses all the same: the address is slowed.
        answers = guess_until_held(lambda: guesser.sign_in("nobody", "x"), 2, server.clock)
        assert refused(answers[-1], "from your address")


def test_ipv6_addresses_count_by_their_64_prefix() -> None:
    one = {client_key(a) for a in ("2001:db8:1:2::5", "2001:db8:1:2:ffff:1:2:3",
                                   "2001:DB8:1:2:0:0:0:9", "2001:db8:1:2::1%eth0")}  # fmt: skip
    assert one == {"2001:db8:1:2::/64"}
    assert client_key("2001:db8:1:3::5") != client_key("2001:db8:1:2::5")
    assert client_key("::ffff:192.0.2.7") == client_key("192.0.2.7") == "192.0.2.7"
    assert client_key("192.0.2.7") != client_key("192.0.2.8")
    assert client_key("testclient") == "testclient" and len(client_key("x" * 1000)) == 100
    wide = "\uff41\uff4c\uff49\uff43\uff45"  # alice in full-width letters
    assert login_key(" Alice ") == login_key("ALICE") == login_key(wide) == "alice"

    async def guesses() -> list[str]:
        """Failures from addresses of one /64, each address new: the
        prefix is held as one client."""
        guard = SignInGuard(b"k" * 32)
        said = []
        for n in range(BY_CLIENT.free + 1):
            try:
                await guard.check(f"2001:db8:1:2::{n + 1:x}", f"login{n}", None,
                                  lambda: True, lambda: None)  # fmt: skip
                said.append("failed")
            except Exception as e:
                said.append(str(e))
        guard.close()
        return said

    said = asyncio.run(guesses())
    assert said == ["failed"] * BY_CLIENT.free + ["too many failed sign-ins from your address"]


def test_what_the_guard_keeps_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood of made-up logins from made-up addresses: no record kind
    grows past its bound, and none of those tries computed a hash."""
    from plpuzzle.sudoku.service import guard as guard_module

    monkeypatch.setattr(guard_module, "MAX_RECORDS", 50)

    async def flood() -> SignInGuard:
        guard = SignInGuard(b"k" * 32, check_seconds=0.001)
        for n in range(400):
            await guard.check(f"10.0.{n // 250}.{n % 250}", f"made-up-{n}", None,
                              lambda: False, lambda: None)  # fmt: skip
        guard.close()
        return guard

    guard = asyncio.run(flood())
    sizes = {kind: len(f.records) for kind, f in guard._failures.items()}
    assert sizes == {"client": 50, "pair": 50, "login": 50, "device": 0}, sizes
    assert guard.counts == {"checked": 0, "pretended": 400, "refused": 0}
