"""GITHUB_APP_ID and its private key, read once: every mistake one line that names the variable
and never shows the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.errors import ConfigError
from bot.settings import load_settings


@pytest.fixture(scope="session")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(
    key: rsa.RSAPrivateKey, form: serialization.PrivateFormat = serialization.PrivateFormat.TraditionalOpenSSL
) -> str:
    return key.private_bytes(serialization.Encoding.PEM, form, serialization.NoEncryption()).decode()


def refused(env: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as error:
        load_settings(env)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_without_an_app_id_there_is_no_app() -> None:
    assert load_settings({}).github_app is None


@pytest.mark.parametrize(
    "form", [serialization.PrivateFormat.TraditionalOpenSSL, serialization.PrivateFormat.PKCS8], ids=["pkcs1", "pkcs8"]
)
def test_the_key_is_taken_from_the_variable(key: rsa.RSAPrivateKey, form: serialization.PrivateFormat) -> None:
    app = load_settings({"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY": pem(key, form)}).github_app
    assert app is not None
    assert (app.app_id, app.key_from) == (4242, "GITHUB_APP_PRIVATE_KEY")
    assert app.private_key == pem(key, form)
    assert "PRIVATE KEY" not in repr(app)


def test_the_key_is_taken_from_its_file(key: rsa.RSAPrivateKey, tmp_path: Path) -> None:
    path = tmp_path / "prdigest.2026-01-01.private-key.pem"
    path.write_text(pem(key), encoding="ascii")
    app = load_settings({"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY_FILE": str(path)}).github_app
    assert app is not None and app.private_key == pem(key) and app.key_from == "GITHUB_APP_PRIVATE_KEY_FILE"


def test_a_key_pasted_on_one_line_keeps_its_line_breaks(key: rsa.RSAPrivateKey) -> None:
    """An env file holds the key on one line, its line breaks written as \\n."""
    one_line = pem(key).strip().replace("\n", "\\n")
    app = load_settings({"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY": one_line}).github_app
    assert app is not None and app.private_key == pem(key)


@pytest.mark.parametrize(
    "text",
    [
        "not a key",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIE\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nMII*not base64*\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
    ],
    ids=["text", "certificate", "ec", "encrypted-pkcs8", "encrypted-pkcs1", "not-base64", "mismatched-armour"],
)
def test_what_is_no_rsa_private_key_in_pem_is_refused_without_being_shown(text: str) -> None:
    message = refused({"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY": text})
    assert message.startswith("GITHUB_APP_PRIVATE_KEY is not an RSA private key in PEM form")
    assert text.splitlines()[-1] not in message.replace("-----BEGIN RSA PRIVATE KEY-----", "")


def test_a_key_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "key.der"
    path.write_bytes(b"\x30\x82\x04\xa4\xff\xfe")
    message = refused({"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY_FILE": str(path)})
    assert message.startswith("GITHUB_APP_PRIVATE_KEY_FILE is not an RSA private key in PEM form")


def test_an_unreadable_key_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.pem"
    message = refused({"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY_FILE": str(missing)})
    assert message == f"GITHUB_APP_PRIVATE_KEY_FILE '{missing}' cannot be read (No such file or directory)"


def test_both_forms_of_the_key_are_one_too_many(key: rsa.RSAPrivateKey, tmp_path: Path) -> None:
    path = tmp_path / "app.pem"
    path.write_text(pem(key), encoding="ascii")
    env = {"GITHUB_APP_ID": "4242", "GITHUB_APP_PRIVATE_KEY": pem(key), "GITHUB_APP_PRIVATE_KEY_FILE": str(path)}
    assert refused(env) == (
        "GITHUB_APP_PRIVATE_KEY and GITHUB_APP_PRIVATE_KEY_FILE are both set: keep one (the key's text, or its file)"
    )


@pytest.mark.parametrize("app_id", ["abc", "-3", "0", "12.5", "Iv1.0123456789abcdef"])
def test_an_app_id_that_is_no_number_is_refused(key: rsa.RSAPrivateKey, app_id: str) -> None:
    message = refused({"GITHUB_APP_ID": app_id, "GITHUB_APP_PRIVATE_KEY": pem(key)})
    assert message.startswith("GITHUB_APP_ID is not a number")


def test_an_app_id_without_its_key_and_a_key_without_its_app_are_refused(key: rsa.RSAPrivateKey) -> None:
    assert refused({"GITHUB_APP_ID": "4242"}).startswith("GITHUB_APP_ID is set but not its key")
    assert refused({"GITHUB_APP_PRIVATE_KEY": pem(key)}).startswith(
        "GITHUB_APP_PRIVATE_KEY is set but not GITHUB_APP_ID"
    )
