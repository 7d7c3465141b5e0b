"""Reliability grades of web sources (SRA letters, by domain) and the authoritative-first sort."""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Literal
from urllib.parse import urlsplit

from langchain_core.documents import Document

Reliability = Literal["A", "B", "C", "D", "E", "F"]
"""SRA/NATO source grade: A completely, B usually, C fairly, D not usually reliable,
E unreliable, F reliability cannot be judged."""

RELIABILITY_ORDER: dict[str, int] = {"A": 0, "B": 1, "C": 2, "F": 3, "D": 4, "E": 5}
"""Sort position of each grade: a source we cannot judge (F) ranks above known-poor ones."""


# Kept deliberately small; a hit on a listed domain also covers its subdomains.
_A_DOMAINS = frozenset(
    {
        "nature.com",
        "science.org",
        "thelancet.com",
        "nejm.org",
        "bmj.com",
        "cell.com",
        "pnas.org",
        "cochranelibrary.com",
        "europa.eu",
        "un.org",
    }
)
_A_TLDS = frozenset({"gov", "mil", "edu", "int"})  # .int covers who.int
# Public-sector second-level labels under a country code: gov.uk, ac.uk, edu.au, gouv.fr ...
_A_SECOND_LEVEL = frozenset({"gov", "edu", "ac", "mil", "gouv", "gob", "go"})
_B_DOMAINS = frozenset(
    {
        "wikipedia.org",
        "britannica.com",
        "arxiv.org",
        "reuters.com",
        "apnews.com",
        "bbc.com",
        "bbc.co.uk",
    }
)
# User-generated content: anyone can write anything there.
_D_DOMAINS = frozenset(
    {
        "reddit.com",
        "quora.com",
        "x.com",
        "twitter.com",
        "facebook.com",
        "instagram.com",
        "tiktok.com",
        "pinterest.com",
        "youtube.com",
        "medium.com",
        "fandom.com",
    }
)


def _in_domains(host: str, domains: Set[str]) -> bool:
    labels = host.split(".")
    return any(".".join(labels[i:]) in domains for i in range(len(labels)))


def grade_source(url: str) -> Reliability:
    """Grade a source by its URL's domain with a small, fixed heuristic.

    "A": government, military, education, intergovernmental (.gov, .mil, .edu, .int,
    gov.uk-style) and a few top journals (nature.com, science.org, ...); "B": Wikipedia and
    a few encyclopedias, wire services and arXiv; "D": user-generated platforms (reddit,
    quora, social media, medium); "C": any other web site; "F": no usable http(s) host
    (missing, malformed or a bare IP address). "E" is never assigned: no blocklist.

    Args:
        url: The result's URL.

    Returns:
        The reliability grade.
    """
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return "F"
    if parts.scheme not in {"http", "https"} or "." not in host:
        return "F"
    if host.replace(".", "").isdigit() or ":" in host:  # IPv4 / IPv6 literal
        return "F"
    labels = host.split(".")
    if labels[-1] in _A_TLDS or _in_domains(host, _A_DOMAINS):
        return "A"
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _A_SECOND_LEVEL:
        return "A"
    if _in_domains(host, _B_DOMAINS):
        return "B"
    if _in_domains(host, _D_DOMAINS):
        return "D"
    return "C"


def authoritative_first(documents: Sequence[Document]) -> list[Document]:
    """Stable sort by reliability grade (`RELIABILITY_ORDER`), then by backend rank."""
    return sorted(
        documents,
        key=lambda d: (
            RELIABILITY_ORDER.get(str(d.metadata.get("reliability")), len(RELIABILITY_ORDER)),
            d.metadata.get("rank", 0),
        ),
    )
