//! TLS on the gRPC port: the certificate and key come from files and are
//! read again when they change (a cert-manager rotation needs no restart),
//! and client certificates can be required (mutual TLS for platform
//! backends).

use std::{
    fmt, io,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant, SystemTime},
};

use futures::Stream;
use rustls::{
    RootCertStore, ServerConfig,
    crypto::CryptoProvider,
    server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier},
    sign::CertifiedKey,
};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use tokio::{net::TcpListener, sync::mpsc};
use tokio_rustls::{TlsAcceptor, server::TlsStream};
use tokio_stream::wrappers::ReceiverStream;

/// How often, at most, the files are looked at for a change.
const RELOAD_CHECK: Duration = Duration::from_secs(1);

/// How long a client may take over its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether clients must present a certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ClientAuth {
    /// Every client presents a certificate the client CA signed.
    Required,
    /// A client may present one (it is then verified) or none.
    Optional,
}

/// Where the server's TLS material is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// PEM certificate chain, the server's own certificate first.
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
    /// PEM certificates of the CA that signs client certificates, for
    /// mutual TLS.
    pub client_ca: Option<PathBuf>,
    /// Whether a client certificate is required (with `client_ca`).
    pub client_auth: ClientAuth,
}

/// Why TLS cannot be set up.
#[derive(Debug)]
pub struct TlsError(String);

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsError {}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The gRPC port's acceptor for `files` (HTTP/2, and HTTP/1.1 for
/// gRPC-Web): refuses to start on files that cannot be read, or a key that
/// does not match its certificate.
pub fn acceptor(files: &TlsFiles) -> Result<TlsAcceptor, TlsError> {
    // gRPC is HTTP/2; gRPC-Web from a browser may come over HTTP/1.1.
    acceptor_for(files, vec![b"h2".to_vec(), b"http/1.1".to_vec()])
}

/// The broadcast feed's acceptor for `files` (HTTP/1.1 only), refusing as
/// [`acceptor`] does.
pub fn http1_acceptor(files: &TlsFiles) -> Result<TlsAcceptor, TlsError> {
    acceptor_for(files, vec![b"http/1.1".to_vec()])
}

fn acceptor_for(files: &TlsFiles, alpn: Vec<Vec<u8>>) -> Result<TlsAcceptor, TlsError> {
    let provider = provider();
    let resolver = ReloadingCert::load(files.clone(), provider.clone())?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|err| TlsError(format!("TLS versions: {err}")))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for cert in certificates(ca)? {
                roots
                    .add(cert)
                    .map_err(|err| TlsError(format!("{}: {err}", ca.display())))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = match files.client_auth {
                ClientAuth::Required => verifier,
                ClientAuth::Optional => verifier.allow_unauthenticated(),
            };
            builder.with_client_cert_verifier(
                verifier
                    .build()
                    .map_err(|err| TlsError(format!("{}: {err}", ca.display())))?,
            )
        }
    };
    let mut config = builder.with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = alpn;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// `stream` after its TLS handshake, or `None` when the handshake fails or
/// takes longer than [`HANDSHAKE_TIMEOUT`].
pub async fn handshake(
    acceptor: &TlsAcceptor,
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
) -> Option<TlsStream<tokio::net::TcpStream>> {
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(err)) => {
            tracing::debug!(%peer, error = %err, "TLS handshake failed");
            None
        }
        Err(_) => {
            tracing::debug!(%peer, "TLS handshake timed out");
            None
        }
    }
}

/// The connections `listener` accepts, each after its TLS handshake. The
/// handshakes run side by side, so a slow client delays nobody; one that
/// fails or takes longer than [`HANDSHAKE_TIMEOUT`] is dropped.
pub fn incoming(
    listener: TcpListener,
    acceptor: TlsAcceptor,
) -> impl Stream<Item = io::Result<TlsStream<tokio::net::TcpStream>>> {
    let (ready, connections) = mpsc::channel(64);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                // The server stopped taking connections.
                () = ready.closed() => return,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    tracing::debug!(error = %err, "accept failed");
                    continue;
                }
            };
            if let Err(err) = stream.set_nodelay(true) {
                tracing::debug!(error = %err, "cannot set TCP_NODELAY");
            }
            let (acceptor, ready) = (acceptor.clone(), ready.clone());
            tokio::spawn(async move {
                if let Some(stream) = handshake(&acceptor, stream, peer).await {
                    let _ = ready.send(Ok(stream)).await;
                }
            });
        }
    });
    ReceiverStream::new(connections)
}

/// When a file was last changed and how long it is: a change of either
/// means the file was replaced.
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|err| TlsError(format!("{}: {err}", path.display())))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| TlsError(format!("{}: {err}", path.display())))?;
    if certs.is_empty() {
        return Err(TlsError(format!("{}: no certificate", path.display())));
    }
    Ok(certs)
}

fn certified_key(files: &TlsFiles, provider: &CryptoProvider) -> Result<CertifiedKey, TlsError> {
    let certs = certificates(&files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key)
        .map_err(|err| TlsError(format!("{}: {err}", files.key.display())))?;
    CertifiedKey::from_der(certs, key, provider).map_err(|err| {
        TlsError(format!(
            "{} and {}: {err}",
            files.cert.display(),
            files.key.display()
        ))
    })
}

/// The certificate in force, read again from its files when they change.
struct ReloadingCert {
    files: TlsFiles,
    provider: Arc<CryptoProvider>,
    state: Mutex<Loaded>,
}

struct Loaded {
    key: Arc<CertifiedKey>,
    /// The files as they were when last looked at.
    stamps: (Stamp, Stamp),
    checked: Instant,
}

impl fmt::Debug for ReloadingCert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReloadingCert")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl ReloadingCert {
    fn load(files: TlsFiles, provider: Arc<CryptoProvider>) -> Result<Self, TlsError> {
        let stamps = (stamp(&files.cert), stamp(&files.key));
        let key = Arc::new(certified_key(&files, &provider)?);
        Ok(Self {
            files,
            provider,
            state: Mutex::new(Loaded {
                key,
                stamps,
                checked: Instant::now(),
            }),
        })
    }

    /// The certificate to present: the files are looked at again at most
    /// once a second, and read again when they changed. New files that do
    /// not make a valid pair (half written, or a key for another
    /// certificate) leave the last good pair in force until they do.
    fn current(&self) -> Arc<CertifiedKey> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if state.checked.elapsed() < RELOAD_CHECK {
            return state.key.clone();
        }
        state.checked = Instant::now();
        let stamps = (stamp(&self.files.cert), stamp(&self.files.key));
        if stamps == state.stamps {
            return state.key.clone();
        }
        match certified_key(&self.files, &self.provider) {
            Ok(key) => {
                tracing::info!(cert = %self.files.cert.display(), "TLS certificate reloaded");
                state.key = Arc::new(key);
                state.stamps = stamps;
            }
            Err(err) => {
                // Tried again when the files change again.
                state.stamps = stamps;
                tracing::warn!(
                    error = %err,
                    "new TLS files not loaded; the previous certificate stays in force"
                );
            }
        }
        state.key.clone()
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}
