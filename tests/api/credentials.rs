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

on_every_backend!(an_arbiter_of_one_event_intervenes_there_only_and_is_named);
