//! TLS on the server's gRPC port: certificates generated here, a client
//! that trusts the CA plays, a plaintext client and a client of another CA
//! are refused, a rotated certificate is served without a restart, mutual
//! TLS admits only clients with a certificate of the client CA, and the
//! plaintext health port answers probes that cannot speak TLS.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use arbiter::{
    proto::arbiter_service_client::ArbiterServiceClient,
    server::{
        StoreChoice,
        tls::{ClientAuth, TlsFiles},
    },
};
use rcgen::{CertifiedIssuer, KeyPair};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

use crate::{
    common::{TestApp, create, create_request, get, make_move, seat, settings},
    redis_tls::{ca, leaf},
};

/// A CA and the PEM of a server certificate and key it signed.
struct Pair {
    ca: CertifiedIssuer<'static, KeyPair>,
    cert: String,
    key: String,
}

fn pair(name: &str) -> Pair {
    let ca = ca(name);
    let (cert, key) = leaf(&ca, "arbiter", true);
    Pair {
        cert: cert.pem(),
        key: key.serialize_pem(),
        ca,
    }
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// A server on the memory store serving TLS with `files`.
async fn spawn(files: TlsFiles, health_listen: Option<SocketAddr>) -> TestApp {
    let mut settings = settings(StoreChoice::Memory);
    settings.tls = Some(files);
    settings.health_listen = health_listen;
    TestApp::spawn_with(settings, None).await
}

/// A client over TLS that trusts `ca`, presenting `identity` if given.
async fn client(
    app: &TestApp,
    ca: &str,
    identity: Option<(&str, &str)>,
) -> Result<ArbiterServiceClient<Channel>, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca))
        .domain_name("localhost");
    if let Some((cert, key)) = identity {
        tls = tls.identity(Identity::from_pem(cert, key));
    }
    let channel = Channel::from_shared(format!("https://127.0.0.1:{}", app.addr.port()))
        .expect("uri")
        .tls_config(tls)?
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await?;
    Ok(ArbiterServiceClient::new(channel))
}

/// The admin client over TLS, for creating games.
async fn admin_client(
    app: &TestApp,
    ca: &str,
    identity: Option<(&str, &str)>,
) -> arbiter::proto::admin_service_client::AdminServiceClient<Channel> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca))
        .domain_name("localhost");
    if let Some((cert, key)) = identity {
        tls = tls.identity(Identity::from_pem(cert, key));
    }
    let channel = Channel::from_shared(format!("https://127.0.0.1:{}", app.addr.port()))
        .expect("uri")
        .tls_config(tls)
        .expect("tls config")
        .connect()
        .await
        .expect("connect over TLS");
    arbiter::proto::admin_service_client::AdminServiceClient::new(channel)
}

/// Whether a call over `client` goes through.
async fn plays(client: Result<ArbiterServiceClient<Channel>, tonic::transport::Error>) -> bool {
    let Ok(mut client) = client else {
        return false;
    };
    client
        .get_game(arbiter::proto::GetGameRequest {
            game_id: "no-such-game".to_owned(),
            ..Default::default()
        })
        .await
        .map_or_else(|status| status.code() == tonic::Code::NotFound, |_| true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_over_tls_and_plaintext_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = pair("server CA");
    let files = TlsFiles {
        cert: write(&dir, "server.pem", &first.cert),
        key: write(&dir, "server.key", &first.key),
        client_ca: None,
        client_auth: ClientAuth::Required,
    };
    let app = spawn(files, None).await;
    let ca_pem = first.ca.pem();
    let mut admin = admin_client(&app, &ca_pem, None).await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("created");
    let mut client = client(&app, &ca_pem, None).await.expect("connect");
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("a move over TLS");
    assert_eq!(get(&mut client, &game.id).await.ply, 1);

    // Plaintext is not served, nor is a client that trusts another CA.
    let plaintext = ArbiterServiceClient::connect(format!("http://{}", app.addr)).await;
    assert!(!plays(plaintext).await, "plaintext was served");
    assert!(
        !plays(client_for_other_ca(&app).await).await,
        "another CA was trusted"
    );
}

async fn client_for_other_ca(
    app: &TestApp,
) -> Result<ArbiterServiceClient<Channel>, tonic::transport::Error> {
    client(app, &pair("another CA").ca.pem(), None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_certificate_is_served_without_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = pair("first CA");
    let files = TlsFiles {
        cert: write(&dir, "server.pem", &first.cert),
        key: write(&dir, "server.key", &first.key),
        client_ca: None,
        client_auth: ClientAuth::Required,
    };
    let app = spawn(files, None).await;
    assert!(plays(client(&app, &first.ca.pem(), None).await).await);

    // Half a rotation (the certificate without its key) keeps the first
    // pair in force.
    let second = pair("second CA");
    write(&dir, "server.pem", &second.cert);
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert!(plays(client(&app, &first.ca.pem(), None).await).await);
    // The whole rotation is served to the next connections.
    write(&dir, "server.key", &second.key);
    let rotated = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if plays(client(&app, &second.ca.pem(), None).await).await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(rotated.is_ok(), "the new certificate was never served");
    assert!(!plays(client(&app, &first.ca.pem(), None).await).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_admits_only_clients_of_the_client_ca() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = pair("server CA");
    let clients = ca("client CA");
    let (platform, platform_key) = leaf(&clients, "platform", false);
    let stranger_ca = ca("stranger CA");
    let (stranger, stranger_key) = leaf(&stranger_ca, "stranger", false);
    let files = |auth| TlsFiles {
        cert: write(&dir, "server.pem", &server.cert),
        key: write(&dir, "server.key", &server.key),
        client_ca: Some(write(&dir, "clients.pem", &clients.pem())),
        client_auth: auth,
    };
    let ca_pem = server.ca.pem();
    let (platform, platform_key) = (platform.pem(), platform_key.serialize_pem());
    let (stranger, stranger_key) = (stranger.pem(), stranger_key.serialize_pem());

    let required = spawn(files(ClientAuth::Required), None).await;
    assert!(plays(client(&required, &ca_pem, Some((&platform, &platform_key))).await).await);
    assert!(
        !plays(client(&required, &ca_pem, None).await).await,
        "no certificate"
    );
    assert!(
        !plays(client(&required, &ca_pem, Some((&stranger, &stranger_key))).await).await,
        "a certificate of another CA"
    );

    let optional = spawn(files(ClientAuth::Optional), None).await;
    assert!(plays(client(&optional, &ca_pem, None).await).await);
    assert!(plays(client(&optional, &ca_pem, Some((&platform, &platform_key))).await).await);
    assert!(
        !plays(client(&optional, &ca_pem, Some((&stranger, &stranger_key))).await).await,
        "a presented certificate is still verified"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_port_answers_probes_in_plaintext() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = pair("server CA");
    let files = || TlsFiles {
        cert: write(&dir, "server.pem", &server.cert),
        key: write(&dir, "server.key", &server.key),
        client_ca: None,
        client_auth: ClientAuth::Required,
    };
    // The port is found free, then given to the server: another test's
    // server may take it in between, so a port whose answers are not
    // this server's is given up for another, a few times at most.
    let mut seen = Vec::new();
    for _ in 0..5 {
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
            probe.local_addr().expect("address")
        };
        let _app = spawn(files(), Some(port)).await;
        match readiness_on(port).await {
            Ok(status) => {
                assert_eq!(status, 1, "readiness SERVING on the health port");
                return;
            }
            Err(why) => seen.push(format!("{port}: {why}")),
        }
    }
    panic!("the health port never answered in plaintext: {seen:#?}");
}

/// The readiness status the health port at `port` reports once it is
/// SERVING, or why it did not within 20 s.
async fn readiness_on(port: SocketAddr) -> Result<i32, String> {
    // The port opens as the server starts: wait for it.
    let channel = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let endpoint = Channel::from_shared(format!("http://{port}")).expect("uri");
            if let Ok(channel) = endpoint.connect().await {
                return channel;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .map_err(|_| "no plaintext connection".to_owned())?;
    let mut health = HealthClient::new(channel);
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let reply = health
                .check(HealthCheckRequest {
                    service: "readiness".to_owned(),
                })
                .await
                .map_err(|status| format!("no health answer: {status}"))?
                .into_inner();
            if reply.status == 1 {
                return Ok(reply.status);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .map_err(|_| "readiness not SERVING within 20 s".to_owned())?
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_tls_files_stop_the_server_with_their_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = pair("server CA");
    let other = pair("other CA");
    let cases = [
        (
            TlsFiles {
                cert: dir.path().join("missing.pem"),
                key: write(&dir, "a.key", &server.key),
                client_ca: None,
                client_auth: ClientAuth::Required,
            },
            "missing.pem",
        ),
        (
            TlsFiles {
                cert: write(&dir, "b.pem", &server.cert),
                key: write(&dir, "b.key", &other.key),
                client_ca: None,
                client_auth: ClientAuth::Required,
            },
            "b.key",
        ),
        (
            TlsFiles {
                cert: write(&dir, "c.pem", "not a certificate"),
                key: write(&dir, "c.key", &server.key),
                client_ca: None,
                client_auth: ClientAuth::Required,
            },
            "c.pem",
        ),
    ];
    for (files, named) in cases {
        let mut settings = settings(StoreChoice::Memory);
        settings.tls = Some(files);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let error = arbiter::server::serve(
            settings,
            listener,
            tokio_util::sync::CancellationToken::new(),
        )
        .await
        .expect_err("refused to start");
        assert!(error.to_string().contains(named), "{error}");
    }
}
