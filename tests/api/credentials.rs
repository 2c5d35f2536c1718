//! Named credentials through the API: an arbiter of one event intervenes
//! in its games under its own name and nowhere else; a feed reader reads
//! live and changes nothing; a revoked or forged credential is refused as
//! such; the platform alone manages them.

use arbiter::proto;
use tonic::{Code, Request, Status};

use crate::common::{ADMIN_TOKEN, Backend, TestApp, create, create_request, pairing, reason};

fn with_token<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    request
}

fn timed_in(event: &str, board: i32) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.pairing = Some(pairing(event, 1, board));
    request.time_control = Some(proto::TimeControl {
        periods: vec![crate::common::period(600_000, 0, 0, 0)],
        ..Default::default()
    });
    request
}

fn pause(game: &str) -> proto::PauseClockRequest {
    proto::PauseClockRequest {
        game_id: game.to_owned(),
        reason: "a dispute at the board".to_owned(),
        ..Default::default()
    }
}

#[track_caller]
fn assert_status(result: Result<impl std::fmt::Debug, Status>, code: Code, why: &str) {
    let status = result.expect_err("refused");
    assert_eq!(
        (status.code(), reason(&status).as_str()),
        (code, why),
        "{status:?}"
    );
}

async fn an_arbiter_of_one_event_intervenes_there_only_and_is_named(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let (event_a, event_b) = ("cred-open-a", "cred-open-b");
    let in_a = create(&mut admin, timed_in(event_a, 1))
        .await
        .expect("game of A");
    let in_b = create(&mut admin, timed_in(event_b, 1))
        .await
        .expect("game of B");

    let created = admin
        .create_credential(with_token(
            proto::CreateCredentialRequest {
                request_id: "chief-a".to_owned(),
                name: "Anna Schmidt, chief arbiter".to_owned(),
                role: proto::Role::Arbiter.into(),
                event_id: event_a.to_owned(),
                ..Default::default()
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("created")
        .into_inner();
    let token = created.token.clone();
    let credential = created.credential.expect("credential");
    assert!(token.starts_with("cred."), "{token}");
    assert!(credential.active);
    assert_eq!(credential.created_by, "admin");
    // A repeat returns the same credential and token.
    let again = admin
        .create_credential(with_token(
            proto::CreateCredentialRequest {
                request_id: "chief-a".to_owned(),
                name: "Anna Schmidt, chief arbiter".to_owned(),
                role: proto::Role::Arbiter.into(),
                event_id: event_a.to_owned(),
                ..Default::default()
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("repeat")
        .into_inner();
    assert_eq!(again.token, token);
    // The same key for another grant is refused.
    assert_status(
        admin
            .create_credential(with_token(
                proto::CreateCredentialRequest {
                    request_id: "chief-a".to_owned(),
                    name: "Someone else".to_owned(),
                    role: proto::Role::Arbiter.into(),
                    event_id: event_a.to_owned(),
                    ..Default::default()
                },
                ADMIN_TOKEN,
            ))
            .await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );

    // In scope: the pause is recorded under the arbiter's name.
    let paused = admin
        .pause_clock(with_token(pause(&in_a.id), &token))
        .await
        .expect("paused")
        .into_inner();
    let by = paused
        .events
        .iter()
        .find_map(|event| match &event.kind {
            Some(proto::game_event::Kind::ClockPaused(p)) => Some(p.by.clone()),
            _ => None,
        })
        .expect("a clock_paused event");
    assert_eq!(by, "Anna Schmidt, chief arbiter");
    // Out of scope: refused, and B's game is untouched.
    assert_status(
        admin.pause_clock(with_token(pause(&in_b.id), &token)).await,
        Code::PermissionDenied,
        "OUT_OF_SCOPE",
    );
    assert_status(
        admin
            .create_game(with_token(timed_in(event_b, 2), &token))
            .await,
        Code::PermissionDenied,
        "OUT_OF_SCOPE",
    );
    let resumed_b = admin
        .resume_clock(with_token(
            proto::ResumeClockRequest {
                game_id: in_b.id.clone(),
                reason: "check".to_owned(),
                ..Default::default()
            },
            ADMIN_TOKEN,
        ))
        .await;
    assert_status(resumed_b, Code::FailedPrecondition, "CLOCK_NOT_PAUSED");
    // Its own event's games it may create; credentials it may not touch.
    create(&mut admin, {
        let mut request = timed_in(event_a, 2);
        request.request_id = "by-the-arbiter".to_owned();
        request
    })
    .await
    .expect("the platform creates");
    admin
        .create_game(with_token(timed_in(event_a, 3), &token))
        .await
        .expect("the arbiter creates in its event");
    assert_status(
        admin
            .list_credentials(with_token(proto::ListCredentialsRequest::default(), &token))
            .await,
        Code::PermissionDenied,
        "ROLE_NOT_PERMITTED",
    );

    // A feed reader reads, and may not intervene.
    let reader = admin
        .create_credential(with_token(
            proto::CreateCredentialRequest {
                name: "Relay".to_owned(),
                role: proto::Role::FeedReader.into(),
                event_id: event_a.to_owned(),
                ..Default::default()
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("reader")
        .into_inner();
    assert_status(
        admin
            .pause_clock(with_token(pause(&in_a.id), &reader.token))
            .await,
        Code::PermissionDenied,
        "ROLE_NOT_PERMITTED",
    );
    let mut client = app.client().await;
    client
        .get_game(with_token(
            proto::GetGameRequest {
                game_id: in_a.id.clone(),
                ..Default::default()
            },
            &reader.token,
        ))
        .await
        .expect("a feed reader reads");

    // Bad input: a scope without a known event, a role's scope rule.
    assert_status(
        admin
            .create_credential(with_token(
                proto::CreateCredentialRequest {
                    name: "Nobody".to_owned(),
                    role: proto::Role::Arbiter.into(),
                    event_id: "cred-no-such-event".to_owned(),
                    ..Default::default()
                },
                ADMIN_TOKEN,
            ))
            .await,
        Code::NotFound,
        "EVENT_NOT_FOUND",
    );
    assert_status(
        admin
            .create_credential(with_token(
                proto::CreateCredentialRequest {
                    name: "Nobody".to_owned(),
                    role: proto::Role::Arbiter.into(),
                    ..Default::default()
                },
                ADMIN_TOKEN,
            ))
            .await,
        Code::InvalidArgument,
        "INVALID_FIELD",
    );

    // Forged and revoked credentials are refused as such.
    let forged = format!("{}x", token);
    assert_status(
        admin
            .pause_clock(with_token(pause(&in_a.id), &forged))
            .await,
        Code::Unauthenticated,
        "CREDENTIAL_INVALID",
    );
    let revoked = admin
        .revoke_credential(with_token(
            proto::RevokeCredentialRequest {
                credential_id: credential.credential_id.clone(),
                reason: "left the event".to_owned(),
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("revoked")
        .into_inner()
        .credential
        .expect("credential");
    assert!(!revoked.active);
    assert_eq!(revoked.revoke_reason, "left the event");
    assert_status(
        admin
            .resume_clock(with_token(
                proto::ResumeClockRequest {
                    game_id: in_a.id.clone(),
                    reason: "resume".to_owned(),
                    ..Default::default()
                },
                &token,
            ))
            .await,
        Code::Unauthenticated,
        "CREDENTIAL_REVOKED",
    );
    let listed = admin
        .list_credentials(with_token(
            proto::ListCredentialsRequest {
                page_size: 1,
                ..Default::default()
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("listed")
        .into_inner();
    assert_eq!(listed.credentials.len(), 1);
    assert!(!listed.next_page_token.is_empty());
}

/// Ten thousand credentials: each created once, every one listed once in
/// id order over the pages, and the first and the last still accepted.
async fn ten_thousand_credentials_are_listed_once_each_and_accepted(backend: Backend) {
    use futures::StreamExt;
    const COUNT: usize = 10_000;
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let event = "cred-many";
    let game = create(&mut admin, timed_in(event, 1))
        .await
        .expect("a game");
    let tokens: Vec<String> = futures::stream::iter(0..COUNT)
        .map(|n| {
            let mut admin = admin.clone();
            async move {
                admin
                    .create_credential(with_token(
                        proto::CreateCredentialRequest {
                            request_id: format!("relay-{n}"),
                            name: format!("Relay {n}"),
                            role: proto::Role::FeedReader.into(),
                            event_id: event.to_owned(),
                            ..Default::default()
                        },
                        ADMIN_TOKEN,
                    ))
                    .await
                    .expect("created")
                    .into_inner()
                    .token
            }
        })
        .buffered(32)
        .collect()
        .await;
    let mut ids = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = admin
            .list_credentials(with_token(
                proto::ListCredentialsRequest {
                    page_size: 500,
                    page_token: page_token.clone(),
                },
                ADMIN_TOKEN,
            ))
            .await
            .expect("a page")
            .into_inner();
        assert!(page.credentials.len() <= 500);
        ids.extend(page.credentials.into_iter().map(|c| c.credential_id));
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(ids, sorted, "in id order, each once");
    assert_eq!(ids.len(), COUNT);
    let mut client = app.client().await;
    for token in [&tokens[0], &tokens[COUNT - 1]] {
        client
            .get_game(with_token(
                proto::GetGameRequest {
                    game_id: game.id.clone(),
                    ..Default::default()
                },
                token,
            ))
            .await
            .expect("accepted");
    }
}

/// A credential is accepted until its expiry and refused as expired after
/// it; an expiry in the past is refused at creation.
async fn a_credential_is_refused_as_expired_after_its_expiry(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let event = "cred-expiring";
    let game = create(&mut admin, timed_in(event, 1))
        .await
        .expect("a game");
    let now = std::time::SystemTime::now();
    let at = |offset: std::time::Duration, past: bool| {
        let instant = if past { now - offset } else { now + offset };
        prost_types::Timestamp::from(instant)
    };
    let request = |expire_time| proto::CreateCredentialRequest {
        name: "Deputy".to_owned(),
        role: proto::Role::Arbiter.into(),
        event_id: event.to_owned(),
        expire_time: Some(expire_time),
        ..Default::default()
    };
    assert_status(
        admin
            .create_credential(with_token(
                request(at(std::time::Duration::from_secs(60), true)),
                ADMIN_TOKEN,
            ))
            .await,
        Code::InvalidArgument,
        "INVALID_FIELD",
    );
    let token = admin
        .create_credential(with_token(
            request(at(std::time::Duration::from_secs(3), false)),
            ADMIN_TOKEN,
        ))
        .await
        .expect("created")
        .into_inner()
        .token;
    admin
        .pause_clock(with_token(pause(&game.id), &token))
        .await
        .expect("accepted before its expiry");
    let inspect = || {
        with_token(
            proto::InspectGameRequest {
                game_id: game.id.clone(),
            },
            &token,
        )
    };
    // Polled until the expiry has passed (at most 30 s).
    let mut refused = None;
    for _ in 0..300 {
        match admin.inspect_game(inspect()).await {
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            Err(status) => {
                refused = Some(status);
                break;
            }
        }
    }
    let refused = refused.expect("refused once expired");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::Unauthenticated, "CREDENTIAL_EXPIRED")
    );
}

on_every_backend!(
    an_arbiter_of_one_event_intervenes_there_only_and_is_named,
    ten_thousand_credentials_are_listed_once_each_and_accepted,
    a_credential_is_refused_as_expired_after_its_expiry,
);
