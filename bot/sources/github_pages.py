"""List pages read through PyGithub's requester, conditionally when a page was seen before.

PyGithub's PaginatedList cannot send If-None-Match, so the list endpoints (the pulls list, issue
search, a repository's review comments) are walked here: one request per page, following GitHub's
Link header (rel="next"), through the client's own requester, so its counted retry and its
exceptions (translated by sources/github_errors.py) apply as to every other request. A page kept
in `PageMemory` goes out with its ETag; a 304 answer gives the kept page back. Items come out as
PyGithub objects built from the page's JSON (no request: they hold what the list sends).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from github import Github
from github.GithubObject import GithubObject

from bot.core.strings.patterns import lazy
from bot.store.repos.pages import KeptPage

T = TypeVar("T", bound=GithubObject)

# GitHub's pagination guide: follow the URL of the Link header's rel="next" until there is none.
_NEXT = lazy(r'<([^>]+)>\s*;\s*rel="next"')
# A listing GitHub numbers also links its last page (rel="last"); cursor-paged ones do not.
_LAST = lazy(r'<([^>]+)>\s*;\s*rel="last"')


class PageMemory(Protocol):
    def get(self, url: str) -> KeptPage | None: ...

    def put(self, url: str, page: KeptPage) -> None: ...


class Pages:
    """Walks list endpoints; `memory` None: every page is asked for in full."""

    def __init__(self, client: Callable[[], Github], memory: PageMemory | None, *, api_url: str) -> None:
        self._gh = client  # this thread's client (sources/github_clients.py)
        self._memory = memory
        self._api_url = api_url.rstrip("/")  # a page is kept per API host: paths alone would mix them
        self.not_modified = 0  # pages GitHub answered 304 (for tests and logs)

    def items(self, klass: type[T], path: str, parameters: dict[str, str], *, key: str | None = None) -> Iterator[T]:
        """Each item of every page of `path` as a `klass`; `key` names the list inside an
        envelope ("items" of a search answer)."""
        for page in self.pages(path, parameters):
            rows = page[key] if key is not None and isinstance(page, dict) else page
            for raw in rows if isinstance(rows, list) else []:
                yield self._gh().create_from_raw_data(klass, raw)

    def pages(self, path: str, parameters: dict[str, str]) -> Iterator[Any]:
        url: str | None = first_url(path, parameters)
        while url is not None:
            body, link = self.page(url)
            yield body
            url = next_url(link)

    def page(self, url: str) -> tuple[Any, str]:
        """One page's JSON and its Link header."""
        requester = self._gh().requester
        name = f"{self._api_url}{url}" if url.startswith("/") else url
        kept = self._memory.get(name) if self._memory is not None else None
        headers = {"If-None-Match": kept.etag} if kept is not None else None
        status, response_headers, text = requester.requestJson("GET", url, headers=headers)
        if status == 304 and kept is not None:
            self.not_modified += 1
            return json.loads(kept.body), kept.link
        try:
            data = json.loads(text) if text else None
        except ValueError:
            # No JSON: a web page (an Enterprise host asked without /api/v3), raised as PyGithub
            # raises any answer whose body it could not read, so github_errors.py tells it.
            raise requester.createException(status, response_headers, {"data": text}) from None
        if status >= 400:
            raise requester.createException(status, response_headers, data if isinstance(data, dict) else {})
        link = str(response_headers.get("link") or "")
        etag = response_headers.get("etag")
        if self._memory is not None and etag:
            self._memory.put(name, KeptPage(str(etag), link, text))
        return data, link


def first_url(path: str, parameters: dict[str, str]) -> str:
    return f"{path}?{urlencode(parameters)}"


def next_url(link: str) -> str | None:
    match = _NEXT.search(link)
    return match.group(1) if match else None


def numbered_after(link: str) -> list[str]:
    """The URLs of every page after this one, when GitHub numbers the listing (its Link names
    the next and the last page by `page`); [] otherwise, or on the last page."""
    next_match, last_match = _NEXT.search(link), _LAST.search(link)
    if next_match is None or last_match is None:
        return []
    first, last = _page_number(next_match.group(1)), _page_number(last_match.group(1))
    if first is None or last is None:
        return []
    return [_with_page(next_match.group(1), number) for number in range(first, last + 1)]


def _page_number(url: str) -> int | None:
    value = dict(parse_qsl(urlsplit(url).query)).get("page", "")
    return int(value) if value.isdigit() else None


def _with_page(url: str, number: int) -> str:
    parts = urlsplit(url)
    query = [(name, str(number) if name == "page" else value) for name, value in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query)))
