"""The laptop's address on the venue's network, found without asking any outside service.

A UDP socket "connected" to a private address sends nothing: the system only picks the
interface it would route through, whose address is the one phones on the same Wi-Fi reach.
When that finds nothing (no network, or only loopback), the host name's addresses are tried.
"""

from __future__ import annotations

import ipaddress
import socket

# Private addresses to route towards (nothing is sent); the first that gives an answer wins.
PROBES = ("10.255.255.255", "192.168.255.255", "172.31.255.255")


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def lan_address() -> str | None:
    """The IPv4 address phones on the venue's network can open, or None if there is none."""
    for probe in PROBES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                address = s.getsockname()[0]
        except OSError:
            continue
        if _usable(address):
            return address
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return None
    return next((info[4][0] for info in infos if _usable(info[4][0])), None)


def venue_environment(
    address: str, port: int, env: dict[str, str], https: bool = False
) -> dict[str, str]:
    """The environment that serves the site at http(s)://address:port: the address allowed as
    a host (with the laptop's own names, so the organiser's browser on it still works) and
    SITE_URL set, so QR codes and the board's seat finder point at it. Over HTTPS the cookies
    are secure too; nothing listens on plain HTTP, so there is nothing to redirect."""
    hosts = [h for h in env.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
    for host in (address, "localhost", "127.0.0.1", "[::1]"):
        if host not in hosts:
            hosts.append(host)
    scheme = "https" if https else "http"
    env = {**env, "ALLOWED_HOSTS": ",".join(hosts), "SITE_URL": f"{scheme}://{address}:{port}"}
    if https:
        env.update(BUNCO_HTTPS="1", BUNCO_SSL_REDIRECT="0")
    return env
