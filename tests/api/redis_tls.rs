//! Redis over TLS: a TLS-only `redis-server` with a CA and certificates
//! generated here, reached through `rediss://` with that CA, with and
//! without mutual TLS; a wrong CA or a missing client certificate is
//! refused with a clear error.

use std::path::PathBuf;

use arbiter::{
    server::StoreChoice,
    store::{GameLog, RedisConfig, RedisStore, RedisTls},
};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair, KeyUsagePurpose, SanType,
};

use crate::common::{RedisServer, TestApp, create, create_request, get, make_move, seat, settings};

/// A CA and the PEM files of certificates it signed.
struct Pki {
    dir: tempfile::TempDir,
    ca_pem: String,
    client_cert_pem: String,
    client_key_pem: String,
}

impl Pki {
    /// A CA, a server certificate for 127.0.0.1 and localhost, and a
    /// client certificate, all written under a fresh directory.
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let ca = ca("arbiter test CA");
        let server = leaf(&ca, "redis", true);
        let client = leaf(&ca, "arbiter", false);
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).expect("write");
        std::fs::write(dir.path().join("server.pem"), server.0.pem()).expect("write");
        std::fs::write(dir.path().join("server.key"), server.1.serialize_pem()).expect("write");
        Self {
            ca_pem: ca.pem(),
            client_cert_pem: client.0.pem(),
            client_key_pem: client.1.serialize_pem(),
            dir,
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A TLS-only Redis with this PKI's server certificate, requiring a
    /// client certificate when `mutual`.
    fn redis(&self, mutual: bool) -> RedisServer {
        let ca = self.file("ca.pem");
        RedisServer::start_tls(
            &self.file("server.pem"),
            &self.file("server.key"),
            mutual.then_some(ca.as_path()),
        )
    }

    fn tls(&self, with_client_certificate: bool) -> RedisTls {
        RedisTls {
            ca_pem: Some(self.ca_pem.clone().into_bytes()),
            client_pem: with_client_certificate.then(|| {
                (
                    self.client_cert_pem.clone().into_bytes(),
                    self.client_key_pem.clone().into_bytes(),
                )
            }),
        }
    }
}

pub(crate) fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("key")).expect("CA")
}

pub(crate) fn leaf(
    ca: &CertifiedIssuer<'static, KeyPair>,
    name: &str,
    server: bool,
) -> (rcgen::Certificate, KeyPair) {
    let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params
        .subject_alt_names
        .push(SanType::IpAddress("127.0.0.1".parse().expect("ip")));
    params.extended_key_usages = vec![if server {
        rcgen::ExtendedKeyUsagePurpose::ServerAuth
    } else {
        rcgen::ExtendedKeyUsagePurpose::ClientAuth
    }];
    let key = KeyPair::generate().expect("key");
    let cert = params.signed_by(&key, ca).expect("signed");
    (cert, key)
}

fn config(redis: &RedisServer, tls: RedisTls) -> RedisConfig {
    RedisConfig {
        url: format!("rediss://127.0.0.1:{}/", redis.port()),
        key_prefix: "tls".to_owned(),
        tls,
        wait: None,
    }
}

/// A whole game through the API on a Redis reached over (mutual) TLS.
async fn a_game_is_played_over_tls(mutual: bool) {
    let pki = Pki::new();
    let redis = pki.redis(mutual);
    let store = StoreChoice::Redis(config(&redis, pki.tls(mutual)));
    let app = TestApp::spawn_with(settings(store), None).await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("tls-game", ""))
        .await
        .expect("created over TLS");
    let mut client = app.client().await;
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("move over TLS");
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.ply, 1);
    drop(redis);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_over_tls_with_the_given_ca() {
    a_game_is_played_over_tls(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_over_mutual_tls() {
    a_game_is_played_over_tls(true).await;
}

/// The store's error when it cannot reach Redis as configured.
async fn ping_error(config: &RedisConfig) -> String {
    let store = RedisStore::new(config).expect("a valid configuration");
    store
        .ping()
        .await
        .expect_err("the connection must be refused")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_certificate_from_another_ca_is_refused() {
    let pki = Pki::new();
    let redis = pki.redis(false);
    let stranger = Pki::new();
    let error = ping_error(&config(&redis, stranger.tls(false))).await;
    assert!(
        error.contains("certificate") || error.contains("Certificate"),
        "the error names the certificate: {error}"
    );
    // The right CA works on the same server.
    RedisStore::new(&config(&redis, pki.tls(false)))
        .expect("store")
        .ping()
        .await
        .expect("ping over TLS");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_without_a_client_certificate_is_refused() {
    let pki = Pki::new();
    let redis = pki.redis(true);
    let error = ping_error(&config(&redis, pki.tls(false))).await;
    assert!(error.contains("Redis"), "{error}");
    RedisStore::new(&config(&redis, pki.tls(true)))
        .expect("store")
        .ping()
        .await
        .expect("ping over mutual TLS");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_files_need_a_rediss_url() {
    let pki = Pki::new();
    let refused = RedisStore::new(&RedisConfig {
        url: "redis://127.0.0.1:6379/".to_owned(),
        key_prefix: "tls".to_owned(),
        tls: pki.tls(false),
        wait: None,
    });
    let Err(error) = refused else {
        panic!("a CA with a plain URL must be refused");
    };
    assert!(error.to_string().contains("rediss://"), "{error}");
}
