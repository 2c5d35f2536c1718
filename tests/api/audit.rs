//! An event's audit log through the API: every administrative act on its
//! games, named by its principal with the request id and the reason, in
//! commit order, filterable and paged; readable by the event's arbiters
//! and auditors only.

use arbiter::proto;
use tonic::{Code, Request};

use crate::common::{ADMIN_TOKEN, Backend, TestApp, create_request, pairing, reason};

fn with_token<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    request
}

fn timed_in(event: &str, board: i32, request_id: &str) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.request_id = request_id.to_owned();
    request.pairing = Some(pairing(event, 1, board));
    request.time_control = Some(proto::TimeControl {
        periods: vec![crate::common::period(600_000, 0, 0, 0)],
        ..Default::default()
    });
    request
}

fn credential(role: proto::Role, event: &str, name: &str) -> proto::CreateCredentialRequest {
    proto::CreateCredentialRequest {
        name: name.to_owned(),
        role: role.into(),
        event_id: event.to_owned(),
        ..Default::default()
    }
}

/// The token of a credential the platform creates.
async fn token_of(
    admin: &mut crate::common::AdminClient,
    request: proto::CreateCredentialRequest,
) -> String {
    admin
        .create_credential(with_token(request, ADMIN_TOKEN))
        .await
        .expect("a credential")
        .into_inner()
        .token
}

/// (kind, principal, request id, reason, game) of each entry.
type Row = (proto::AuditKind, String, String, String, String);

fn rows(entries: &[proto::AuditEntry]) -> Vec<Row> {
    entries
        .iter()
        .map(|entry| {
            (
                entry.kind(),
                entry.principal.clone(),
                entry.request_id.clone(),
                entry.reason.clone(),
                entry.game_id.clone(),
            )
        })
        .collect()
}

async fn an_event_audit_log_names_every_act_and_who_did_it(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let (cup, other) = ("audit-cup", "audit-other");
    let game = admin
        .create_game(with_token(timed_in(cup, 1, "create-1"), ADMIN_TOKEN))
        .await
        .expect("created")
        .into_inner()
        .game
        .expect("game");
    admin
        .create_game(with_token(timed_in(other, 1, "create-2"), ADMIN_TOKEN))
        .await
        .expect("created elsewhere");
    let anna = token_of(&mut admin, credential(proto::Role::Arbiter, cup, "Anna")).await;
    admin
        .pause_clock(with_token(
            proto::PauseClockRequest {
                request_id: "pause-1".to_owned(),
                game_id: game.game_id.clone(),
                reason: "arbiter call".to_owned(),
            },
            &anna,
        ))
        .await
        .expect("paused");
    admin
        .adjust_clock(with_token(
            proto::AdjustClockRequest {
                request_id: "adjust-1".to_owned(),
                game_id: game.game_id.clone(),
                color: proto::Color::White.into(),
                delta_millis: 120_000,
                reason: "clock fault".to_owned(),
                ..Default::default()
            },
            &anna,
        ))
        .await
        .expect("adjusted");
    // A retry of the pause changes nothing and adds no act.
    admin
        .pause_clock(with_token(
            proto::PauseClockRequest {
                request_id: "pause-1".to_owned(),
                game_id: game.game_id.clone(),
                reason: "arbiter call".to_owned(),
            },
            &anna,
        ))
        .await
        .expect("repeat");

    let reader = admin.clone();
    let list = |request: proto::ListAuditEntriesRequest, token: &str| {
        let mut admin = reader.clone();
        let request = with_token(request, token);
        async move { admin.list_audit_entries(request).await }
    };
    let all = proto::ListAuditEntriesRequest {
        event_id: cup.to_owned(),
        ..Default::default()
    };
    let page = list(all.clone(), &anna)
        .await
        .expect("the log")
        .into_inner();
    // The acts on the game, and Anna's credential created between them.
    let acts: Vec<Row> = vec![
        (
            proto::AuditKind::GameCreated,
            "admin".into(),
            "create-1".into(),
            String::new(),
            game.game_id.clone(),
        ),
        (
            proto::AuditKind::ClockPaused,
            "Anna".into(),
            "pause-1".into(),
            "arbiter call".into(),
            game.game_id.clone(),
        ),
        (
            proto::AuditKind::ClockAdjusted,
            "Anna".into(),
            "adjust-1".into(),
            "clock fault".into(),
            game.game_id.clone(),
        ),
    ];
    let anna_created: Row = (
        proto::AuditKind::CredentialCreated,
        "admin".into(),
        String::new(),
        String::new(),
        String::new(),
    );
    let expected: Vec<Row> = vec![
        acts[0].clone(),
        anna_created.clone(),
        acts[1].clone(),
        acts[2].clone(),
    ];
    assert_eq!(rows(&page.entries), expected);
    assert!(page.next_page_token.is_empty());
    assert!(matches!(
        page.entries[3].event.as_ref().and_then(|e| e.kind.as_ref()),
        Some(proto::game_event::Kind::ClockAdjusted(adjusted)) if adjusted.delta_millis == 120_000
    ));
    let created = page.entries[1].credential.as_ref().expect("the credential");
    assert_eq!(
        (
            created.name.as_str(),
            created.event_id.as_str(),
            created.active
        ),
        ("Anna", cup, true)
    );
    assert_eq!(created.role(), proto::Role::Arbiter);
    assert!(page.entries[1].event.is_none());

    // The export holds the same entries in the same order, one JSON
    // object a line.
    let mut export = reader
        .clone()
        .export_audit_log(with_token(
            proto::ExportAuditLogRequest {
                event_id: cup.to_owned(),
            },
            &anna,
        ))
        .await
        .expect("the export")
        .into_inner();
    let mut lines = String::new();
    while let Some(message) = export.message().await.expect("a message") {
        lines.push_str(&message.json_lines);
    }
    let exported: Vec<serde_json::Value> = lines
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let kinds: Vec<&str> = exported
        .iter()
        .map(|line| line["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        [
            "game_created",
            "credential_created",
            "clock_paused",
            "clock_adjusted"
        ]
    );
    assert_eq!(exported[2]["principal"], "Anna");
    assert_eq!(exported[2]["request_id"], "pause-1");
    assert_eq!(exported[2]["reason"], "arbiter call");
    assert_eq!(exported[2]["game_id"], game.game_id.as_str());
    assert!(exported[3]["event"].is_object(), "{}", exported[3]);
    assert_eq!(exported[1]["credential"]["name"], "Anna");
    assert!(!lines.contains("digest"), "{lines}");

    // Filters: by principal, by kind, by game.
    let mut by_anna = all.clone();
    by_anna.principal = "Anna".to_owned();
    let page = list(by_anna, ADMIN_TOKEN)
        .await
        .expect("Anna's")
        .into_inner();
    assert_eq!(rows(&page.entries), acts[1..].to_vec());
    let mut pauses = all.clone();
    pauses.kinds = vec![proto::AuditKind::ClockPaused.into()];
    let page = list(pauses, ADMIN_TOKEN)
        .await
        .expect("pauses")
        .into_inner();
    assert_eq!(rows(&page.entries), acts[1..2].to_vec());
    let mut of_game = all.clone();
    of_game.game_id = game.game_id.clone();
    let page = list(of_game, ADMIN_TOKEN)
        .await
        .expect("the game's")
        .into_inner();
    assert_eq!(rows(&page.entries), acts);

    // Pages of one: every act once, in order.
    let mut seen = Vec::new();
    let mut request = all.clone();
    request.page_size = 1;
    for _ in 0..10 {
        let page = list(request.clone(), ADMIN_TOKEN)
            .await
            .expect("a page")
            .into_inner();
        seen.extend(rows(&page.entries));
        if page.next_page_token.is_empty() {
            break;
        }
        request.page_token = page.next_page_token;
    }
    assert_eq!(seen, expected);

    // A token of one filter is refused with another; a bad kind too.
    let mut first = all.clone();
    first.page_size = 1;
    let token = list(first, ADMIN_TOKEN)
        .await
        .expect("a page")
        .into_inner()
        .next_page_token;
    let mut other_filter = all.clone();
    other_filter.principal = "Anna".to_owned();
    other_filter.page_token = token;
    let refused = list(other_filter, ADMIN_TOKEN).await.expect_err("refused");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::InvalidArgument, "INVALID_FIELD")
    );
    let mut bad_kind = all.clone();
    bad_kind.kinds = vec![99];
    let refused = list(bad_kind, ADMIN_TOKEN).await.expect_err("refused");
    assert_eq!(refused.code(), Code::InvalidArgument);

    // Who may read it: the event's arbiter and auditor; not another
    // event's arbiter, nor a feed reader.
    let auditor = token_of(&mut admin, credential(proto::Role::Auditor, cup, "Auditor")).await;
    list(all.clone(), &auditor)
        .await
        .expect("the auditor reads");
    let outsider = token_of(&mut admin, credential(proto::Role::Arbiter, other, "Bert")).await;
    let refused = list(all.clone(), &outsider)
        .await
        .expect_err("out of scope");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::PermissionDenied, "OUT_OF_SCOPE")
    );
    let relay = token_of(
        &mut admin,
        credential(proto::Role::FeedReader, cup, "Relay"),
    )
    .await;
    let refused = list(all.clone(), &relay).await.expect_err("not permitted");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::PermissionDenied, "ROLE_NOT_PERMITTED")
    );
    // A revocation is in the log too, with who and why.
    let relay_id = admin
        .list_credentials(with_token(
            proto::ListCredentialsRequest::default(),
            ADMIN_TOKEN,
        ))
        .await
        .expect("the credentials")
        .into_inner()
        .credentials
        .into_iter()
        .find(|c| c.name == "Relay")
        .expect("the relay's")
        .credential_id;
    admin
        .revoke_credential(with_token(
            proto::RevokeCredentialRequest {
                credential_id: relay_id.clone(),
                reason: "the broadcast ended".to_owned(),
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("revoked");
    let mut changes = all.clone();
    changes.kinds = vec![
        proto::AuditKind::CredentialCreated.into(),
        proto::AuditKind::CredentialRevoked.into(),
    ];
    let page = list(changes, &auditor)
        .await
        .expect("the changes")
        .into_inner();
    let names: Vec<(proto::AuditKind, String, String)> = page
        .entries
        .iter()
        .map(|entry| {
            (
                entry.kind(),
                entry
                    .credential
                    .as_ref()
                    .map(|c| c.name.clone())
                    .unwrap_or_default(),
                entry.reason.clone(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            (
                proto::AuditKind::CredentialCreated,
                "Anna".into(),
                String::new()
            ),
            (
                proto::AuditKind::CredentialCreated,
                "Auditor".into(),
                String::new()
            ),
            (
                proto::AuditKind::CredentialCreated,
                "Relay".into(),
                String::new()
            ),
            (
                proto::AuditKind::CredentialRevoked,
                "Relay".into(),
                "the broadcast ended".into()
            ),
        ]
    );
    let revoked = page.entries[3].credential.as_ref().expect("the credential");
    assert_eq!(
        (revoked.active, revoked.revoked_by.as_str()),
        (false, "admin")
    );

    // The platform's own log: the credentials for every event, read by the
    // platform and auditors of every event only.
    admin
        .create_credential(with_token(
            proto::CreateCredentialRequest {
                request_id: "everywhere-1".to_owned(),
                ..credential(proto::Role::Auditor, "", "Fair-play officer")
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("an auditor of every event");
    let platform_log = proto::ListAuditEntriesRequest::default();
    let page = list(platform_log.clone(), ADMIN_TOKEN)
        .await
        .expect("the platform's log")
        .into_inner();
    assert_eq!(
        rows(&page.entries),
        [(
            proto::AuditKind::CredentialCreated,
            "admin".into(),
            "everywhere-1".into(),
            String::new(),
            String::new(),
        )]
    );
    let refused = list(platform_log, &anna).await.expect_err("out of scope");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::PermissionDenied, "OUT_OF_SCOPE")
    );

    // The other event's log holds its own act and credential only.
    let mut elsewhere = all;
    elsewhere.event_id = other.to_owned();
    let page = list(elsewhere, &outsider)
        .await
        .expect("B's log")
        .into_inner();
    assert_eq!(
        rows(&page.entries)
            .into_iter()
            .map(|row| (row.0, row.2))
            .collect::<Vec<_>>(),
        vec![
            (proto::AuditKind::GameCreated, "create-2".to_owned()),
            (proto::AuditKind::CredentialCreated, String::new()),
        ]
    );
}

/// A log longer than a page of every source (more credential changes
/// than one read takes, acts on games in many partitions) is exported
/// whole: every entry once, in pages of at most 100.
async fn a_long_audit_log_is_exported_whole(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let event = "audit-long";
    let mut games = std::collections::BTreeSet::new();
    for board in 1..=80 {
        let created = admin
            .create_game(with_token(
                timed_in(event, board, &format!("long-{board}")),
                ADMIN_TOKEN,
            ))
            .await
            .expect("created")
            .into_inner();
        games.insert(created.game.expect("game").game_id);
        if board <= 70 {
            admin
                .create_credential(with_token(
                    credential(proto::Role::Arbiter, event, &format!("Deputy {board}")),
                    ADMIN_TOKEN,
                ))
                .await
                .expect("a deputy");
        }
    }
    let mut export = admin
        .export_audit_log(with_token(
            proto::ExportAuditLogRequest {
                event_id: event.to_owned(),
            },
            ADMIN_TOKEN,
        ))
        .await
        .expect("the export")
        .into_inner();
    let mut lines = Vec::new();
    let mut messages = 0;
    while let Some(message) = export.message().await.expect("a message") {
        messages += 1;
        let page: Vec<serde_json::Value> = message
            .json_lines
            .lines()
            .map(|line| serde_json::from_str(line).expect("JSON"))
            .collect();
        assert!(!page.is_empty() && page.len() <= 100, "{}", page.len());
        lines.extend(page);
    }
    assert!(messages >= 2, "{messages} messages");
    let exported_games: std::collections::BTreeSet<String> = lines
        .iter()
        .filter_map(|line| line["game_id"].as_str().map(str::to_owned))
        .collect();
    let deputies: std::collections::BTreeSet<String> = lines
        .iter()
        .filter_map(|line| line["credential"]["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(lines.len(), 150);
    assert_eq!(exported_games, games);
    assert_eq!(deputies.len(), 70);
}

on_every_backend!(
    an_event_audit_log_names_every_act_and_who_did_it,
    a_long_audit_log_is_exported_whole,
);
