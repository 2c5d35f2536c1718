//! Who may call what, every RPC against every kind of credential: reads
//! and streams are public (a token is ignored), seat actions need the
//! game's own seat token, admin calls the admin token. A refused call is
//! refused with the exact status and reason, and changes nothing.

use std::time::Duration;

use arbiter::proto;
use tonic::{Code, Request, Status};

use crate::common::{
    ADMIN_TOKEN, Backend, TestApp, create, create_request, get, next_within, pairing, reason,
};

/// The credentials a call can carry.
#[derive(Clone, Copy, Debug)]
enum Credential<'a> {
    None,
    Garbage,
    Token(&'a str),
}

fn request<T>(message: T, credential: Credential<'_>) -> Request<T> {
    let mut request = Request::new(message);
    let token = match credential {
        Credential::None => return request,
        Credential::Garbage => "not-a-token",
        Credential::Token(token) => token,
    };
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    request
}

/// Every RPC of both services, on one game of an event.
#[derive(Clone, Copy, Debug)]
enum Rpc {
    GetGame,
    ListMoves,
    MakeMove,
    ResignGame,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    ClaimDraw,
    AbortGame,
    CheckIn,
    ClaimVictory,
    ReportClientSignal,
    WatchGame,
    ListGames,
    WatchEvent,
    GetStandings,
    GetTeamStandings,
    GetTeams,
    ExportPgn,
    ExportTrf,
    CreateGame,
    AdjustClock,
    PauseClock,
    ResumeClock,
    SetGameResult,
    InspectGame,
    ReportConnection,
    CreateRound,
    StartRound,
    GetRound,
    ImportPairings,
    RegisterTeams,
    CreateMatchTieBreak,
    CreateCredential,
    RevokeCredential,
    ListCredentials,
    ListAuditEntries,
    ExportAuditLog,
    ExportFairPlay,
}

/// Who may call an RPC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needs {
    Nothing,
    Seat,
    Admin,
}

impl Rpc {
    const ALL: [Rpc; 39] = [
        Rpc::GetGame,
        Rpc::ListMoves,
        Rpc::MakeMove,
        Rpc::ResignGame,
        Rpc::OfferDraw,
        Rpc::AcceptDraw,
        Rpc::DeclineDraw,
        Rpc::ClaimDraw,
        Rpc::AbortGame,
        Rpc::CheckIn,
        Rpc::ClaimVictory,
        Rpc::ReportClientSignal,
        Rpc::WatchGame,
        Rpc::ListGames,
        Rpc::WatchEvent,
        Rpc::GetStandings,
        Rpc::GetTeamStandings,
        Rpc::GetTeams,
        Rpc::ExportPgn,
        Rpc::ExportTrf,
        Rpc::CreateGame,
        Rpc::AdjustClock,
        Rpc::PauseClock,
        Rpc::ResumeClock,
        Rpc::SetGameResult,
        Rpc::InspectGame,
        Rpc::ReportConnection,
        Rpc::CreateRound,
        Rpc::StartRound,
        Rpc::GetRound,
        Rpc::ImportPairings,
        Rpc::RegisterTeams,
        Rpc::CreateMatchTieBreak,
        Rpc::CreateCredential,
        Rpc::RevokeCredential,
        Rpc::ListCredentials,
        Rpc::ListAuditEntries,
        Rpc::ExportAuditLog,
        Rpc::ExportFairPlay,
    ];

    fn needs(self) -> Needs {
        match self {
            Rpc::GetGame
            | Rpc::ListMoves
            | Rpc::WatchGame
            | Rpc::ListGames
            | Rpc::WatchEvent
            | Rpc::GetStandings
            | Rpc::GetTeamStandings
            | Rpc::GetTeams
            | Rpc::ExportPgn
            | Rpc::ExportTrf => Needs::Nothing,
            Rpc::MakeMove
            | Rpc::ResignGame
            | Rpc::OfferDraw
            | Rpc::AcceptDraw
            | Rpc::DeclineDraw
            | Rpc::ClaimDraw
            | Rpc::AbortGame
            | Rpc::CheckIn
            | Rpc::ClaimVictory
            | Rpc::ReportClientSignal => Needs::Seat,
            Rpc::CreateGame
            | Rpc::AdjustClock
            | Rpc::PauseClock
            | Rpc::ResumeClock
            | Rpc::SetGameResult
            | Rpc::InspectGame
            | Rpc::ReportConnection
            | Rpc::CreateRound
            | Rpc::StartRound
            | Rpc::GetRound
            | Rpc::ImportPairings
            | Rpc::RegisterTeams
            | Rpc::CreateMatchTieBreak
            | Rpc::CreateCredential
            | Rpc::RevokeCredential
            | Rpc::ListCredentials
            | Rpc::ListAuditEntries
            | Rpc::ExportAuditLog
            | Rpc::ExportFairPlay => Needs::Admin,
        }
    }

    /// Calls the RPC on `game` of `event`; a stream's answer is its first
    /// message (or its end).
    async fn call(
        self,
        app: &TestApp,
        game: &str,
        event: &str,
        credential: Credential<'_>,
    ) -> Result<(), Status> {
        let mut client = app.client().await;
        let mut admin = app.admin_client().await;
        let game_id = game.to_owned();
        let event_id = event.to_owned();
        let reason = "checking who may call".to_owned();
        macro_rules! unary {
            ($client:ident . $rpc:ident ($message:expr)) => {
                $client
                    .$rpc(request($message, credential))
                    .await
                    .map(|_| ())
            };
        }
        macro_rules! stream {
            ($rpc:ident ($message:expr)) => {
                stream!(client.$rpc($message))
            };
            ($client:ident . $rpc:ident ($message:expr)) => {{
                let mut stream = $client
                    .$rpc(request($message, credential))
                    .await?
                    .into_inner();
                match next_within(&mut stream, Duration::from_secs(30)).await {
                    Some(Err(status)) => Err(status),
                    _ => Ok(()),
                }
            }};
        }
        match self {
            Rpc::GetGame => unary!(client.get_game(proto::GetGameRequest {
                game_id,
                ..Default::default()
            })),
            Rpc::ListMoves => unary!(client.list_moves(proto::ListMovesRequest {
                game_id,
                ..Default::default()
            })),
            Rpc::MakeMove => unary!(client.make_move(proto::MakeMoveRequest {
                game_id,
                r#move: "e4".to_owned(),
                ply: 0,
                offer_draw: false,
                lag_millis: 0,
                reply_view: 0,
                client_move_millis: None,
            })),
            Rpc::ResignGame => unary!(client.resign_game(proto::ResignGameRequest { game_id })),
            Rpc::OfferDraw => unary!(client.offer_draw(proto::OfferDrawRequest { game_id })),
            Rpc::AcceptDraw => unary!(client.accept_draw(proto::AcceptDrawRequest { game_id })),
            Rpc::DeclineDraw => unary!(client.decline_draw(proto::DeclineDrawRequest { game_id })),
            Rpc::ClaimDraw => unary!(client.claim_draw(proto::ClaimDrawRequest {
                game_id,
                reason: proto::DrawClaimReason::FiftyMoves.into(),
                r#move: String::new(),
                ply: 0,
            })),
            Rpc::AbortGame => unary!(client.abort_game(proto::AbortGameRequest { game_id })),
            Rpc::CheckIn => unary!(client.check_in(proto::CheckInRequest { game_id })),
            Rpc::ClaimVictory => {
                unary!(client.claim_victory(proto::ClaimVictoryRequest { game_id }))
            }
            Rpc::ReportClientSignal => unary!(client.report_client_signal(
                proto::ReportClientSignalRequest {
                    game_id,
                    kind: proto::ClientSignalKind::FocusLost.into(),
                    client_time: None,
                }
            )),
            Rpc::WatchGame => stream!(watch_game(proto::WatchGameRequest {
                game_id,
                ..Default::default()
            })),
            Rpc::ListGames => unary!(client.list_games(proto::ListGamesRequest {
                event_id,
                ..Default::default()
            })),
            Rpc::WatchEvent => stream!(watch_event(proto::WatchEventRequest {
                event_id,
                after_cursor: String::new(),
                round: 0,
            })),
            Rpc::GetStandings => {
                unary!(client.get_standings(proto::GetStandingsRequest {
                    event_id,
                    ..Default::default()
                }))
            }
            Rpc::GetTeamStandings => {
                unary!(client.get_team_standings(proto::GetTeamStandingsRequest {
                    event_id,
                    ..Default::default()
                }))
            }
            Rpc::GetTeams => unary!(client.get_teams(proto::GetTeamsRequest { event_id })),
            Rpc::ExportPgn => stream!(export_pgn(proto::ExportPgnRequest {
                target: Some(proto::export_pgn_request::Target::GameId(game_id))
            })),
            Rpc::ExportTrf => unary!(client.export_trf(proto::ExportTrfRequest {
                event_id,
                ..Default::default()
            })),
            // A game of the event (round 3, apart from the others).
            Rpc::CreateGame => unary!(admin.create_game(proto::CreateGameRequest {
                pairing: Some(pairing(event, 3, 1)),
                ..create_request("", "")
            })),
            Rpc::AdjustClock => unary!(admin.adjust_clock(proto::AdjustClockRequest {
                game_id,
                reason,
                color: proto::Color::White.into(),
                delta_millis: 1000,
                ..Default::default()
            })),
            Rpc::PauseClock => unary!(admin.pause_clock(proto::PauseClockRequest {
                game_id,
                reason,
                ..Default::default()
            })),
            Rpc::ResumeClock => unary!(admin.resume_clock(proto::ResumeClockRequest {
                game_id,
                reason,
                ..Default::default()
            })),
            Rpc::SetGameResult => unary!(admin.set_game_result(proto::SetGameResultRequest {
                game_id,
                reason,
                ruling: Some(proto::set_game_result_request::Ruling::Played(
                    proto::PlayedResult {
                        outcome: proto::Outcome::Draw.into(),
                        termination: proto::Termination::Unspecified.into(),
                    }
                )),
                ..Default::default()
            })),
            Rpc::InspectGame => unary!(admin.inspect_game(proto::InspectGameRequest { game_id })),
            // Connected again: a report of what is known, which changes
            // nothing even when admitted.
            Rpc::ReportConnection => {
                unary!(admin.report_connection(proto::ReportConnectionRequest {
                    game_id,
                    color: proto::Color::White.into(),
                    connected: true,
                }))
            }
            // The event's games were made outside rounds: admitted round
            // calls are refused for that, never for their credentials.
            Rpc::CreateRound => unary!(admin.create_round(proto::CreateRoundRequest {
                event_id,
                round: 2,
                ..Default::default()
            })),
            Rpc::StartRound => {
                unary!(admin.start_round(proto::StartRoundRequest { event_id, round: 2 }))
            }
            Rpc::RegisterTeams => unary!(admin.register_teams(proto::RegisterTeamsRequest {
                event_id,
                boards: 0,
                ..Default::default()
            })),
            Rpc::CreateMatchTieBreak => unary!(admin.create_match_tie_break(
                proto::CreateMatchTieBreakRequest {
                    event_id,
                    round: 2,
                    table: 1,
                    white_player_id: "x".to_owned(),
                    black_player_id: "y".to_owned(),
                    settings: None,
                }
            )),
            Rpc::GetRound => unary!(admin.get_round(proto::GetRoundRequest {
                event_id,
                round: 2,
                ..Default::default()
            })),
            Rpc::ImportPairings => unary!(admin.import_pairings(proto::ImportPairingsRequest {
                event_id,
                round: 2,
                pairings: "1\n1 2\n".into(),
                ..Default::default()
            })),
            // A feed reader of the event: admitted, it is created.
            Rpc::CreateCredential => {
                unary!(admin.create_credential(proto::CreateCredentialRequest {
                    name: "checking who may call".to_owned(),
                    role: proto::Role::FeedReader.into(),
                    event_id,
                    ..Default::default()
                }))
            }
            // No such credential: admitted, it is not found.
            Rpc::RevokeCredential => {
                unary!(admin.revoke_credential(proto::RevokeCredentialRequest {
                    credential_id: "0123456789abcdef0123".to_owned(),
                    reason,
                }))
            }
            Rpc::ListCredentials => {
                unary!(admin.list_credentials(proto::ListCredentialsRequest::default()))
            }
            Rpc::ListAuditEntries => {
                unary!(admin.list_audit_entries(proto::ListAuditEntriesRequest {
                    event_id,
                    ..Default::default()
                }))
            }
            Rpc::ExportAuditLog => {
                stream!(admin.export_audit_log(proto::ExportAuditLogRequest { event_id }))
            }
            Rpc::ExportFairPlay => {
                unary!(admin.export_fair_play(proto::ExportFairPlayRequest { game_id }))
            }
        }
    }
}

/// The credential failures, by name.
const AUTH_REASONS: [&str; 4] = [
    "MISSING_TOKEN",
    "NOT_A_SEAT",
    "NOT_ADMIN",
    "ADMIN_TOKEN_NOT_SET",
];

#[track_caller]
fn assert_refused(rpc: Rpc, result: Result<(), Status>, code: Code, why: &str, with: &str) {
    let status = result
        .err()
        .unwrap_or_else(|| panic!("{rpc:?} with {with} was allowed"));
    assert_eq!(
        (status.code(), reason(&status).as_str()),
        (code, why),
        "{rpc:?} with {with}: {status:?}"
    );
}

#[track_caller]
fn assert_admitted(rpc: Rpc, result: Result<(), Status>, with: &str) {
    if let Err(status) = result {
        assert!(
            !AUTH_REASONS.contains(&reason(&status).as_str())
                && !matches!(
                    status.code(),
                    Code::Unauthenticated | Code::PermissionDenied
                ),
            "{rpc:?} with {with} was refused for its credentials: {status:?}"
        );
    }
}

async fn every_rpc_admits_exactly_its_callers(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let event = "auth-open";
    let mut in_event = create_request("", "");
    in_event.pairing = Some(pairing(event, 1, 1));
    in_event.time_control = Some(proto::TimeControl {
        periods: vec![crate::common::period(600_000, 0, 0, 0)],
        ..Default::default()
    });
    let game = create(&mut admin, in_event.clone())
        .await
        .expect("the game");
    let mut elsewhere = in_event;
    elsewhere.pairing = Some(pairing(event, 1, 2));
    let other = create(&mut admin, elsewhere).await.expect("another game");
    let before = get(&mut client, &game.id).await;

    for rpc in Rpc::ALL {
        let call = |credential| rpc.call(&app, &game.id, event, credential);
        match rpc.needs() {
            Needs::Nothing => {
                assert_admitted(rpc, call(Credential::None).await, "no token");
                assert_admitted(rpc, call(Credential::Garbage).await, "a garbage token");
                assert_admitted(
                    rpc,
                    call(Credential::Token(&other.white)).await,
                    "a seat token",
                );
            }
            Needs::Seat => {
                assert_refused(
                    rpc,
                    call(Credential::None).await,
                    Code::Unauthenticated,
                    "MISSING_TOKEN",
                    "no token",
                );
                for (with, credential) in [
                    ("a garbage token", Credential::Garbage),
                    ("another game's seat", Credential::Token(&other.white)),
                    ("the admin token", Credential::Token(ADMIN_TOKEN)),
                ] {
                    assert_refused(
                        rpc,
                        call(credential).await,
                        Code::PermissionDenied,
                        "NOT_A_SEAT",
                        with,
                    );
                }
            }
            Needs::Admin => {
                assert_refused(
                    rpc,
                    call(Credential::None).await,
                    Code::Unauthenticated,
                    "MISSING_TOKEN",
                    "no token",
                );
                for (with, credential) in [
                    ("a garbage token", Credential::Garbage),
                    ("the game's own seat", Credential::Token(&game.white)),
                ] {
                    assert_refused(
                        rpc,
                        call(credential).await,
                        Code::PermissionDenied,
                        "NOT_ADMIN",
                        with,
                    );
                }
            }
        }
    }
    // Nothing a refused call sent changed the game (its clocks are read
    // at another instant).
    let unclocked = |mut game: proto::Game| {
        game.clock = None;
        game
    };
    assert_eq!(
        unclocked(get(&mut client, &game.id).await),
        unclocked(before)
    );

    // The rightful callers get past the credentials.
    for rpc in Rpc::ALL {
        let credential = match rpc.needs() {
            Needs::Nothing => Credential::None,
            Needs::Seat => Credential::Token(&game.white),
            Needs::Admin => Credential::Token(ADMIN_TOKEN),
        };
        assert_admitted(
            rpc,
            rpc.call(&app, &game.id, event, credential).await,
            "its own credential",
        );
    }
}

/// What an RPC asks of a named credential, as docs/security.md's matrix
/// states it (written out here, apart from the server's own table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asks {
    /// A read anyone may make (a credential may only lift the delay).
    Public,
    /// A seat's token, which no credential is.
    Seat,
    Organise,
    Intervene,
    Inspect,
    ReadRounds,
    ManageCredentials,
    ReadCredentials,
}

impl Rpc {
    fn asks(self) -> Asks {
        match self {
            Rpc::CreateGame
            | Rpc::CreateRound
            | Rpc::StartRound
            | Rpc::ImportPairings
            | Rpc::RegisterTeams
            | Rpc::CreateMatchTieBreak => Asks::Organise,
            Rpc::AdjustClock
            | Rpc::PauseClock
            | Rpc::ResumeClock
            | Rpc::SetGameResult
            | Rpc::ReportConnection => Asks::Intervene,
            Rpc::InspectGame
            | Rpc::ListAuditEntries
            | Rpc::ExportAuditLog
            | Rpc::ExportFairPlay => Asks::Inspect,
            Rpc::GetRound => Asks::ReadRounds,
            Rpc::CreateCredential | Rpc::RevokeCredential => Asks::ManageCredentials,
            Rpc::ListCredentials => Asks::ReadCredentials,
            rpc => match rpc.needs() {
                Needs::Seat => Asks::Seat,
                _ => Asks::Public,
            },
        }
    }
}

/// The named credentials of the role matrix: each role, confined to the
/// game's event (in) or to another (out), and the auditor of every event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holder {
    Platform,
    ArbiterIn,
    ArbiterOut,
    FeedReaderIn,
    FeedReaderOut,
    AuditorIn,
    AuditorOut,
    AuditorOfAll,
}

impl Holder {
    const ALL: [Holder; 8] = [
        Holder::Platform,
        Holder::ArbiterIn,
        Holder::ArbiterOut,
        Holder::FeedReaderIn,
        Holder::FeedReaderOut,
        Holder::AuditorIn,
        Holder::AuditorOut,
        Holder::AuditorOfAll,
    ];

    /// The credential's role and event.
    fn grant(self, inside: &str, outside: &str) -> (proto::Role, String) {
        let (role, event) = match self {
            Holder::Platform => (proto::Role::Platform, ""),
            Holder::ArbiterIn => (proto::Role::Arbiter, inside),
            Holder::ArbiterOut => (proto::Role::Arbiter, outside),
            Holder::FeedReaderIn => (proto::Role::FeedReader, inside),
            Holder::FeedReaderOut => (proto::Role::FeedReader, outside),
            Holder::AuditorIn => (proto::Role::Auditor, inside),
            Holder::AuditorOut => (proto::Role::Auditor, outside),
            Holder::AuditorOfAll => (proto::Role::Auditor, ""),
        };
        (role, event.to_owned())
    }

    /// The refusal's reason for a call asking `asks`; `None`: admitted.
    fn refusal(self, asks: Asks) -> Option<&'static str> {
        const ROLE: Option<&str> = Some("ROLE_NOT_PERMITTED");
        const SCOPE: Option<&str> = Some("OUT_OF_SCOPE");
        match (asks, self) {
            (Asks::Public, _) => None,
            (Asks::Seat, _) => Some("NOT_A_SEAT"),
            (_, Holder::Platform) => None,
            (Asks::Organise | Asks::Intervene, Holder::ArbiterIn) => None,
            (Asks::Organise | Asks::Intervene, Holder::ArbiterOut) => SCOPE,
            (Asks::Organise | Asks::Intervene, _) => ROLE,
            (
                Asks::Inspect | Asks::ReadRounds,
                Holder::ArbiterIn | Holder::AuditorIn | Holder::AuditorOfAll,
            ) => None,
            (Asks::Inspect | Asks::ReadRounds, Holder::ArbiterOut | Holder::AuditorOut) => SCOPE,
            (Asks::Inspect | Asks::ReadRounds, _) => ROLE,
            (Asks::ManageCredentials, _) => ROLE,
            (Asks::ReadCredentials, Holder::AuditorOfAll) => None,
            (Asks::ReadCredentials, Holder::AuditorIn | Holder::AuditorOut) => SCOPE,
            (Asks::ReadCredentials, _) => ROLE,
        }
    }
}

/// Every RPC × every role × in its scope or out of it: admitted, or
/// refused with PERMISSION_DENIED and the reason the matrix gives, and a
/// refused call changes nothing.
async fn every_rpc_admits_exactly_the_roles_its_action_allows(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let (inside, outside) = ("roles-in", "roles-out");
    let timed = |event: &str, board: i32| {
        let mut request = create_request("", "");
        request.pairing = Some(pairing(event, 1, board));
        request.time_control = Some(proto::TimeControl {
            periods: vec![crate::common::period(600_000, 0, 0, 0)],
            ..Default::default()
        });
        request
    };
    let game = create(&mut admin, timed(inside, 1))
        .await
        .expect("the game");
    create(&mut admin, timed(outside, 1))
        .await
        .expect("a game of the other event");
    let mut tokens = Vec::new();
    for holder in Holder::ALL {
        let (role, event_id) = holder.grant(inside, outside);
        let created = admin
            .create_credential(crate::common::admin(proto::CreateCredentialRequest {
                name: format!("{holder:?}"),
                role: role.into(),
                event_id,
                ..Default::default()
            }))
            .await
            .unwrap_or_else(|status| panic!("{holder:?}: {status:?}"))
            .into_inner();
        tokens.push((holder, created.token));
    }
    let before = get(&mut client, &game.id).await;
    let unclocked = |mut game: proto::Game| {
        game.clock = None;
        game
    };
    // The refusals first, while the game stands as created; then the
    // calls admitted, whose effects later ones may meet.
    for refusals in [true, false] {
        for rpc in Rpc::ALL {
            for (holder, token) in &tokens {
                let expected = holder.refusal(rpc.asks());
                if expected.is_some() != refusals {
                    continue;
                }
                let with = format!("{holder:?}");
                let result = rpc
                    .call(&app, &game.id, inside, Credential::Token(token))
                    .await;
                match expected {
                    Some(why) => {
                        assert_refused(rpc, result, Code::PermissionDenied, why, &with);
                    }
                    None => assert_admitted(rpc, result, &with),
                }
            }
        }
        if refusals {
            assert_eq!(
                unclocked(get(&mut client, &game.id).await),
                unclocked(before.clone()),
                "a refused call changed the game"
            );
        }
    }
}

on_every_backend!(
    every_rpc_admits_exactly_its_callers,
    every_rpc_admits_exactly_the_roles_its_action_allows,
);

/// Open mode (no admin token, the embedded quick start): anyone creates
/// games, nobody intervenes as the arbiter, seats and reads are as ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_mode_admits_creation_and_closes_interventions() {
    let mut settings = crate::common::settings(Backend::Memory.store());
    settings.admin_token = None;
    let app = TestApp::spawn_with(settings, None).await;
    let mut admin = app.admin_client().await;
    let event = "auth-open";
    let mut in_event = create_request("", "");
    in_event.pairing = Some(pairing(event, 1, 1));
    in_event.time_control = Some(proto::TimeControl {
        periods: vec![crate::common::period(600_000, 0, 0, 0)],
        ..Default::default()
    });
    let created = admin
        .create_game(Request::new(in_event))
        .await
        .expect("open mode creates games")
        .into_inner();
    let game = created.game.expect("game").game_id;
    for rpc in Rpc::ALL {
        for (with, credential) in [
            ("no token", Credential::None),
            ("a garbage token", Credential::Garbage),
            (
                "the game's own seat",
                Credential::Token(&created.white_token),
            ),
        ] {
            let result = rpc.call(&app, &game, event, credential).await;
            match (rpc, rpc.needs()) {
                // Creation, rounds included, is open to anyone in open mode.
                (
                    Rpc::CreateGame
                    | Rpc::CreateRound
                    | Rpc::StartRound
                    | Rpc::GetRound
                    | Rpc::ImportPairings
                    | Rpc::RegisterTeams
                    | Rpc::CreateMatchTieBreak,
                    _,
                )
                | (_, Needs::Nothing) => assert_admitted(rpc, result, with),
                (_, Needs::Admin) => assert_refused(
                    rpc,
                    result,
                    Code::PermissionDenied,
                    "ADMIN_TOKEN_NOT_SET",
                    with,
                ),
                (_, Needs::Seat) => match credential {
                    Credential::None => {
                        assert_refused(rpc, result, Code::Unauthenticated, "MISSING_TOKEN", with)
                    }
                    Credential::Garbage => {
                        assert_refused(rpc, result, Code::PermissionDenied, "NOT_A_SEAT", with)
                    }
                    Credential::Token(_) => assert_admitted(rpc, result, with),
                },
            }
        }
    }
}

/// The matrix covers every method of the contract, so that a new RPC cannot
/// be left out of it unnoticed.
#[test]
fn every_method_is_in_the_matrix() {
    let mut listed: Vec<String> = Rpc::ALL
        .iter()
        .map(|rpc| {
            let service = match rpc.needs() {
                Needs::Admin => "AdminService",
                Needs::Nothing | Needs::Seat => "ArbiterService",
            };
            format!("{service}/{rpc:?}")
        })
        .collect();
    listed.sort();
    assert_eq!(listed, crate::common::every_method());
}
