"""The On The Map bot as an irctest client controller.

irctest (https://github.com/progval/irctest) plays an IRC server in each client case and asks this
controller to start the bot against it: `run()` writes a bot config for the case (server, TLS and
its trusted certificate fingerprint, SASL account) into the controller's directory and starts the
built `onthemap-bot` with it. The directory (and the bot's SQLite file, where it keeps STS
policies) lives until irctest kills the controller, so a case that stops and starts the bot again
finds what the bot remembered.

The executable is $ONTHEMAP_BOT (scripts/irctest/run sets it to the release build).
"""

import json
import os
from pathlib import Path
from typing import List, Optional, Type

from irctest import authentication, tls
from irctest.basecontrollers import BaseClientController, DirectoryBasedController


def yaml_string(value: str) -> str:
    """A YAML scalar for any string (JSON strings are YAML)."""
    return json.dumps(value)


class OnTheMapController(BaseClientController, DirectoryBasedController):
    software_name = "On The Map"
    # EXTERNAL needs a client certificate, which irctest's client cases do not give.
    supported_sasl_mechanisms = {"PLAIN", "SCRAM-SHA-256"}
    supports_sts = True

    def run(
        self,
        hostname: str,
        port: int,
        auth: Optional[authentication.Authentication],
        tls_config: Optional[tls.TlsConfig] = None,
    ) -> None:
        if tls_config is None:
            tls_config = tls.TlsConfig(enable=False, trusted_fingerprints=[])
        assert self.proc is None
        self.create_config()
        assert self.directory
        lines: List[str] = [
            "irc:",
            f"  server: {yaml_string(hostname)}",
            f"  port: {port}",
            f"  tls: {'true' if tls_config.enable else 'false'}",
            "  nick: OnTheMapBot",
            "  channels: []",
            "  announce_to: []",
            "  flood: {enabled: false}",
        ]
        if tls_config.trusted_fingerprints:
            # The pin is what a TLS connection, or an STS upgrade to one, trusts.
            lines.append(f"  tls_fingerprint: {yaml_string(tls_config.trusted_fingerprints[0])}")
        if auth:
            mechanisms = [mechanism.to_string() for mechanism in auth.mechanisms]
            lines += [
                "  sasl:",
                f"    mechanism: {json.dumps(mechanisms)}",
                f"    username: {yaml_string(auth.username or '')}",
                f"    password: {yaml_string(auth.password or '')}",
                # A case where the server offers none of the mechanisms expects the client to go
                # on without an account.
                "    required: false",
            ]
        lines += [
            "service:",
            "  backend: local",
            f"  database: {yaml_string(str(self.directory / 'onthemap.sqlite'))}",
        ]
        config = self.directory / "bot.yaml"
        config.write_text("\n".join(lines) + "\n")
        bot = os.environ.get("ONTHEMAP_BOT", str(Path(__file__).resolve().parents[2] / ".build/release/onthemap-bot"))
        self.proc = self.execute([bot, "run", "--config", str(config)], proc_name="onthemap-bot")


def get_irctest_controller_class() -> Type[OnTheMapController]:
    return OnTheMapController
