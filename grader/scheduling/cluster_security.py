"""Who may use the grading cluster: the course's own certificate authority and mutual TLS.

Dask workers run as root (the sandbox needs it) and execute whatever function a client sends.
A scheduler without authentication therefore lets anyone who can reach it, a student's account on
the same machine included, run code as root on the workers: the course secret and the model
answers are theirs. The cluster is closed with mutual TLS (``distributed.security.Security``,
``tls://`` addresses, ``require_encryption``): the scheduler, the workers and the grader each
present a certificate signed by the course's own CA, and each side rejects a peer without one.

``grader cluster-certs`` makes that CA and the certificates (``make_certificates``) into one
private folder, mode 0700, keys mode 0600 (the CA's own key signs them and is then discarded, so
no further certificate can ever be made from it)::

    ca.pem                              the course CA: every machine of the cluster trusts it
    scheduler.pem  scheduler-key.pem    the scheduler's certificate and key
    worker.pem     worker-key.pem       every worker's certificate and key
    client.pem     client-key.pem       ``grader autograde --scheduler tls://...``'s certificate and key

The folder is ``.grader/cluster-certs`` in the course folder unless the environment variable
``GRADER_CLUSTER_CERTS`` names another (``certificates_folder``). ``client_security`` turns it into
the grader's ``Security`` and refuses an insecure scheduler (``InsecureSchedulerError``);
``probe_without_certificate`` checks that a listener really rejects strangers.

Certificates are only as safe as their folder: whoever can write it (or rename it, through a
folder above) can swap the CA and the certificates, and then their own client runs code as root on
the workers. So ``make_certificates`` refuses a folder, or a folder above it, that another account
owns or can write (``UntrustedFolderError``), and every load (``certificate_problems``: the
grader's ``client_security`` and ``grader doctor``) checks the owner and the mode of the folder,
the folders above it and every file in it (``grader.root_trust``).
"""
from __future__ import annotations

import datetime
import os
import socket
import ssl
import stat
from dataclasses import dataclass
from pathlib import Path

from grader.course import Course
from grader.root_trust import nearest_existing, untrusted, untrusted_tree
from grader.settings import CLUSTER_CERTS
from grader.state_folders import CLUSTER_CERTIFICATES as CERTS_DIR_NAME
from grader.state_folders import STATE_DIR_NAME

CERTS_VARIABLE = CLUSTER_CERTS.name
CA_FILE = "ca.pem"
ROLES = ("scheduler", "worker", "client")
DEFAULT_DAYS = 365
PROBE_SECONDS = 10.0  # a TLS handshake on a loaded machine takes well under a second
INSECURE_FLAG = "--insecure-scheduler"
RISK = ("anyone who can reach the scheduler can run code as the workers' user, root: "
        "the course secret and the model answers")


class InsecureSchedulerError(RuntimeError):
    """The scheduler, or the grader's way of reaching it, does not keep strangers out."""


class UntrustedFolderError(RuntimeError):
    """The certificates folder, a folder above it or a file in it is another account's to change."""


class CertificatesExistError(RuntimeError):
    """``make_certificates`` would overwrite the certificates a running cluster may be using."""


def cert_file(folder: Path, role: str) -> Path:
    """The certificate of ``role`` (one of ``ROLES``) in a certificates folder."""
    return Path(folder) / f"{role}.pem"


def key_file(folder: Path, role: str) -> Path:
    """The private key of ``role`` in a certificates folder."""
    return Path(folder) / f"{role}-key.pem"


def ownership_problems(folder: Path) -> list[str]:
    """Why another account could swap what is in ``folder`` (empty: only this process's account,
    or root, can): the owner and the write bits of the folder, of every folder above it and of
    every file in it."""
    folder = Path(os.path.abspath(folder))
    if folder.exists():
        found = untrusted_tree(folder)
    else:  # it will be made: whoever can write the nearest folder above could swap it afterwards
        found = untrusted([nearest_existing(folder)])
    return [f"{problem}, so that account can swap the CA and the certificates" for problem in found]


def certificates_folder(course: Course) -> Path:
    """Where the course's cluster certificates are: ``$GRADER_CLUSTER_CERTS`` or ``.grader/cluster-certs``."""
    configured = CLUSTER_CERTS.read()
    if configured:
        return Path(configured).expanduser().resolve()
    return course.root / STATE_DIR_NAME / CERTS_DIR_NAME


# ---- making the CA and the certificates --------------------------------------------------------

def _name(common_name: str):
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _private_pem(key) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _encoding():
    from cryptography.hazmat.primitives import serialization

    return serialization.Encoding.PEM


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` created with ``mode`` (never readable by others, even briefly)."""
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def make_certificates(folder: Path, days: int = DEFAULT_DAYS, label: str = "grading cluster",
                      force: bool = False) -> list[Path]:
    """Make a new CA and one certificate per role in ``folder``; the files written.

    days: how long the certificates are valid, from now. label: put into the certificates'
    names (the course), to tell them apart. The folder is created mode 0700 (and made so if it
    exists); keys are mode 0600, certificates 0644. CertificatesExistError when ``folder``
    already holds certificates and ``force`` is not set: a running cluster may be using them.
    UntrustedFolderError when another account owns or can write ``folder``, a folder above it or
    a file in it (``ownership_problems``): nothing is written then.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

    if days < 1:
        raise ValueError(f"certificates must be valid for at least one day, not {days}")
    folder = Path(folder)
    problems = ownership_problems(folder)
    if problems:
        raise UntrustedFolderError(
            f"refusing to write cluster certificates into {folder}: " + "; ".join(problems)
            + ". Choose a folder of your own that only you can write (the default, the course's "
            ".grader/cluster-certs, is one), or remove this one and run `grader cluster-certs` again")
    existing = [p for p in [folder / CA_FILE] + [cert_file(folder, r) for r in ROLES] if p.exists()]
    if existing and not force:
        raise CertificatesExistError(
            f"{folder} already holds cluster certificates ({', '.join(p.name for p in existing)}); "
            "a running scheduler and its workers may be using them. Pass --force to replace them, "
            "then restart the scheduler and the workers with the new files")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)

    now = datetime.datetime.now(datetime.timezone.utc)
    not_before, not_after = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name(f"{label} CA")
    ca_cert = (x509.CertificateBuilder()
               .subject_name(ca_name).issuer_name(ca_name)
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False,
                                            key_agreement=False, key_cert_sign=True, crl_sign=True,
                                            encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
               .sign(ca_key, hashes.SHA256()))
    written = [folder / CA_FILE]
    _write(folder / CA_FILE, ca_cert.public_bytes(_encoding()), 0o644)
    for role in ROLES:
        # The scheduler and the workers also connect to each other, so they are clients as well.
        usages = ([ExtendedKeyUsageOID.CLIENT_AUTH] if role == "client"
                  else [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH])
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder()
                .subject_name(_name(f"{label} {role}")).issuer_name(ca_name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(not_before).not_valid_after(not_after)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                             key_encipherment=False, data_encipherment=False,
                                             key_agreement=True, key_cert_sign=False, crl_sign=False,
                                             encipher_only=False, decipher_only=False), critical=True)
                .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
                .add_extension(x509.SubjectAlternativeName([x509.DNSName(f"grader-{role}")]), critical=False)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                               critical=False)
                .sign(ca_key, hashes.SHA256()))
        _write(key_file(folder, role), _private_pem(key), 0o600)
        _write(cert_file(folder, role), cert.public_bytes(_encoding()), 0o644)
        written += [cert_file(folder, role), key_file(folder, role)]
    return written


# ---- what the grader connects with -------------------------------------------------------------

def scheme_of(address: str) -> str:
    """The protocol of a Dask address (``tcp`` when it names none, as Dask assumes)."""
    scheme, sep, _ = address.partition("://")
    return scheme.lower() if sep else "tcp"


def readable_by_others(path: Path) -> bool:
    """Whether accounts other than the owner have any access to ``path`` (group or other permission bits)."""
    return bool(os.stat(path).st_mode & (stat.S_IRWXG | stat.S_IRWXO))


def certificate_problems(folder: Path, role: str = "client") -> list[str]:
    """Why ``folder`` cannot authenticate ``role`` to the cluster (empty: it can)."""
    needed = [folder / CA_FILE, cert_file(folder, role), key_file(folder, role)]
    missing = [p.name for p in needed if not p.is_file()]
    if missing:
        return [f"{folder} lacks {', '.join(missing)}"]
    problems = ownership_problems(folder)
    if readable_by_others(key_file(folder, role)):
        problems.append(f"{key_file(folder, role)} is readable by other accounts, so it no longer proves "
                        f"anything: run `grader cluster-certs --force` for new certificates (or at least "
                        f"`chmod 600 {key_file(folder, role)}`)")
    try:
        context_for(folder, role)
    except (ssl.SSLError, OSError, ValueError) as exc:
        problems.append(f"the certificate and key in {folder} do not load: {exc}")
    return problems


def context_for(folder: Path, role: str) -> ssl.SSLContext:
    """A client TLS context that presents ``role``'s certificate and trusts only the course CA."""
    from distributed.security import Security

    return Security(tls_ca_file=str(folder / CA_FILE), require_encryption=True,
                    **{f"tls_{role}_cert": str(cert_file(folder, role)),
                       f"tls_{role}_key": str(key_file(folder, role))}).get_connection_args(role)["ssl_context"]


def client_security(course: Course, address: str, insecure: bool = False):
    """The ``distributed.security.Security`` for ``grader autograde --scheduler address``.

    A ``tls://`` address uses the client certificate of the course's certificates folder and
    trusts only the course CA; any other address, or a folder without a usable client certificate,
    raises InsecureSchedulerError naming the risk, unless ``insecure`` (then: None for a plain
    address, Dask's own defaults).
    """
    from distributed.security import Security

    folder = certificates_folder(course)
    if scheme_of(address) != "tls":
        if insecure:
            return None
        raise InsecureSchedulerError(
            f"refusing to grade on {address}: a {scheme_of(address)}:// scheduler neither encrypts nor "
            f"checks who connects, so {RISK}. Start the scheduler and the workers with the course's "
            "certificates (`grader cluster-certs`; docs/operations/cluster.md) and pass its "
            f"tls:// address; or pass {INSECURE_FLAG} if no untrusted account can reach the scheduler "
            "or the workers")
    problems = certificate_problems(folder)
    if problems:
        if insecure:
            return None
        raise InsecureSchedulerError(
            f"refusing to grade on {address} without the course's client certificate: "
            + "; ".join(problems) + f". Make them with `grader cluster-certs` (or set {CERTS_VARIABLE} "
            f"to the folder holding {CA_FILE}, client.pem and client-key.pem); without mutual TLS {RISK}")
    return Security(tls_ca_file=str(folder / CA_FILE), tls_client_cert=str(cert_file(folder, "client")),
                    tls_client_key=str(key_file(folder, "client")), require_encryption=True)


# ---- does a listener keep strangers out? -------------------------------------------------------

@dataclass(frozen=True)
class ProbeResult:
    """What a client without a certificate got from a ``tls://`` listener."""

    verdict: str  # REFUSED (it requires a certificate), LET_IN or UNREACHABLE
    detail: str


REFUSED, LET_IN, UNREACHABLE = "refused", "let in", "unreachable"


def probe_without_certificate(address: str, ca_file: Path, timeout: float = PROBE_SECONDS) -> ProbeResult:
    """Connect to the ``tls://host:port`` listener as a stranger would: trusting the course CA,
    presenting no certificate. A Dask listener speaks first (its handshake message), so any byte
    received means it let the stranger in; an alert or a closed connection means it refused.
    """
    host, _, port = address.partition("://")[2].rpartition(":")
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(ca_file))
    context.check_hostname = False  # like Dask's own contexts: the course CA decides, not host names
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as raw:
            with context.wrap_socket(raw) as tls:
                data = tls.recv(1)
    except ssl.SSLCertVerificationError as exc:
        return ProbeResult(LET_IN, f"{address} presents a certificate not signed by the course CA "
                                   f"({exc.verify_message}), so the grader cannot tell it from an impostor")
    except TimeoutError:
        return ProbeResult(LET_IN, f"{address} neither refused nor answered a client without a certificate "
                                   f"within {timeout:.0f} s")
    except (ssl.SSLError, ConnectionError) as exc:
        return ProbeResult(REFUSED, f"{address} refused a client without a certificate ({exc})")
    except OSError as exc:
        return ProbeResult(UNREACHABLE, f"{address} cannot be reached from here: {exc}")
    if not data:
        return ProbeResult(REFUSED, f"{address} closed the connection of a client without a certificate")
    return ProbeResult(LET_IN, f"{address} let in a client without a certificate")


def listener_problems(scheduler: str, others: list[str], ca_file: Path) -> list[str]:
    """Why the cluster's listeners do not keep strangers out (empty: they do).

    scheduler: its address as the grader reaches it (it must be reachable). others: the workers'
    and nannies' addresses as the scheduler knows them; one this machine cannot reach is not
    checked (the grader needs only the scheduler).
    """
    problems = []
    for address in [scheduler, *others]:
        if scheme_of(address) != "tls":
            problems.append(f"{address} listens without TLS, so {RISK}; start it with --tls-ca-file, "
                            "--tls-cert and --tls-key")
            continue
        probe = probe_without_certificate(address, ca_file)
        if probe.verdict == LET_IN or (probe.verdict == UNREACHABLE and address == scheduler):
            problems.append(f"{probe.detail}, so {RISK}")
    return problems


# ---- grader doctor ------------------------------------------------------------------------------

def certificates_report(course: Course) -> tuple[bool, str] | None:
    """``grader doctor``'s view of the course's cluster certificates: (usable, detail), or None
    when no certificates folder is there nor configured (the course grades locally).

    Usable: the CA and the client's certificate and key are there, the folder and its files are
    this account's (root's) alone, the key is private, the certificate is signed by the CA and
    valid now. The detail names the folder and the expiry.
    """
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature

    folder = certificates_folder(course)
    if not folder.exists() and not CLUSTER_CERTS.is_set():
        return None
    problems = certificate_problems(folder) if folder.is_dir() else [f"{folder} does not exist"]
    if problems:
        return False, "; ".join(problems) + " (`grader cluster-certs` makes them)"
    ca = x509.load_pem_x509_certificate((folder / CA_FILE).read_bytes())
    client = x509.load_pem_x509_certificate(cert_file(folder, "client").read_bytes())
    try:
        client.verify_directly_issued_by(ca)
    except (InvalidSignature, ValueError, TypeError) as exc:
        return False, f"{cert_file(folder, 'client')} is not signed by {folder / CA_FILE} ({type(exc).__name__})"
    now = datetime.datetime.now(datetime.timezone.utc)
    expires = min(client.not_valid_after_utc, ca.not_valid_after_utc)
    if expires <= now:
        return False, f"the certificates in {folder} expired on {expires:%Y-%m-%d}; run `grader cluster-certs --force`"
    exposed = sorted(p.name for p in folder.glob("*-key.pem") if readable_by_others(p))
    if exposed:
        return False, (f"{', '.join(exposed)} in {folder} readable by other accounts; run "
                       "`grader cluster-certs --force` and give the cluster the new files")
    return True, (f"{folder}: course CA and client certificate valid until {expires:%Y-%m-%d}, keys private; "
                  "`grader autograde --scheduler tls://...` uses them")


def not_configured_note(course: Course) -> str:
    """What ``grader doctor`` says when the course has no cluster certificates."""
    return (f"cluster grading: no certificates in {certificates_folder(course)}; `grader autograde "
            "--scheduler` refuses a scheduler until `grader cluster-certs` makes them (local grading "
            "needs none)")
