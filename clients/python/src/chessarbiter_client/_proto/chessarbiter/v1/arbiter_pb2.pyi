import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    ERROR_REASON_INVALID_FIELD: _ClassVar[ErrorReason]
    ERROR_REASON_UNPARSABLE_MOVE: _ClassVar[ErrorReason]
    ERROR_REASON_ILLEGAL_MOVE: _ClassVar[ErrorReason]
    ERROR_REASON_MISSING_TOKEN: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_A_SEAT: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_ADMIN: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_YOUR_TURN: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_OVER: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_ABORTED: _ClassVar[ErrorReason]
    ERROR_REASON_ABORT_TOO_LATE: _ClassVar[ErrorReason]
    ERROR_REASON_DRAW_OFFER_NOT_ALLOWED: _ClassVar[ErrorReason]
    ERROR_REASON_NO_DRAW_OFFER: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_STARTED: _ClassVar[ErrorReason]
    ERROR_REASON_CLOCK_PAUSED: _ClassVar[ErrorReason]
    ERROR_REASON_CLOCK_NOT_PAUSED: _ClassVar[ErrorReason]
    ERROR_REASON_UNTIMED: _ClassVar[ErrorReason]
    ERROR_REASON_TOKENS_NOT_REISSUABLE: _ClassVar[ErrorReason]
    ERROR_REASON_STALE_PLY: _ClassVar[ErrorReason]
    ERROR_REASON_CONTENTION: _ClassVar[ErrorReason]
    ERROR_REASON_REQUEST_ID_REUSED: _ClassVar[ErrorReason]
    ERROR_REASON_VERSION_AHEAD: _ClassVar[ErrorReason]
    ERROR_REASON_STORAGE_UNAVAILABLE: _ClassVar[ErrorReason]
    ERROR_REASON_SHUTTING_DOWN: _ClassVar[ErrorReason]
    ERROR_REASON_CORRUPT_DATA: _ClassVar[ErrorReason]
    ERROR_REASON_TOO_MANY_STREAMS: _ClassVar[ErrorReason]
    ERROR_REASON_ADMIN_TOKEN_NOT_SET: _ClassVar[ErrorReason]
    ERROR_REASON_HISTORY_REWRITTEN: _ClassVar[ErrorReason]
    ERROR_REASON_OVERLOADED: _ClassVar[ErrorReason]
    ERROR_REASON_RATE_LIMITED: _ClassVar[ErrorReason]
    ERROR_REASON_ROUND_EXISTS: _ClassVar[ErrorReason]
    ERROR_REASON_ROUND_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_ABORT_NOT_ALLOWED: _ClassVar[ErrorReason]
    ERROR_REASON_GIVE_TIME_NOT_ALLOWED: _ClassVar[ErrorReason]
    ERROR_REASON_VICTORY_CLAIM_NOT_ALLOWED: _ClassVar[ErrorReason]
    ERROR_REASON_VICTORY_CLAIM_BEFORE_MOVES: _ClassVar[ErrorReason]
    ERROR_REASON_OPPONENT_CONNECTED: _ClassVar[ErrorReason]
    ERROR_REASON_OPPONENT_LEFT_TOO_RECENTLY: _ClassVar[ErrorReason]
    ERROR_REASON_WATCHER_TOO_SLOW: _ClassVar[ErrorReason]
    ERROR_REASON_DRAW_REQUEST_LIMIT: _ClassVar[ErrorReason]
    ERROR_REASON_MALFORMED_REQUEST: _ClassVar[ErrorReason]
    ERROR_REASON_EVENT_FULL: _ClassVar[ErrorReason]
    ERROR_REASON_REPLY_TOO_LARGE: _ClassVar[ErrorReason]
    ERROR_REASON_METADATA_TOO_LARGE: _ClassVar[ErrorReason]
    ERROR_REASON_CREDENTIAL_INVALID: _ClassVar[ErrorReason]
    ERROR_REASON_CREDENTIAL_EXPIRED: _ClassVar[ErrorReason]
    ERROR_REASON_CREDENTIAL_REVOKED: _ClassVar[ErrorReason]
    ERROR_REASON_ROLE_NOT_PERMITTED: _ClassVar[ErrorReason]
    ERROR_REASON_OUT_OF_SCOPE: _ClassVar[ErrorReason]
    ERROR_REASON_CREDENTIAL_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_TOO_MANY_CREDENTIALS: _ClassVar[ErrorReason]
    ERROR_REASON_EVENT_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_FAIR_PLAY_NOT_RECORDED: _ClassVar[ErrorReason]
    ERROR_REASON_FAIR_PLAY_RECORD_FULL: _ClassVar[ErrorReason]
    ERROR_REASON_TEAM_PAIRING_INVALID: _ClassVar[ErrorReason]
    ERROR_REASON_TEAMS_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_TEAMS_CHANGED: _ClassVar[ErrorReason]
    ERROR_REASON_MATCH_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_MATCH_NOT_DRAWN: _ClassVar[ErrorReason]
    ERROR_REASON_TIE_BREAK_EXISTS: _ClassVar[ErrorReason]

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_PLATFORM: _ClassVar[Role]
    ROLE_ARBITER: _ClassVar[Role]
    ROLE_FEED_READER: _ClassVar[Role]
    ROLE_AUDITOR: _ClassVar[Role]

class AuditKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUDIT_KIND_UNSPECIFIED: _ClassVar[AuditKind]
    AUDIT_KIND_GAME_CREATED: _ClassVar[AuditKind]
    AUDIT_KIND_GAME_STARTED: _ClassVar[AuditKind]
    AUDIT_KIND_CLOCK_ADJUSTED: _ClassVar[AuditKind]
    AUDIT_KIND_CLOCK_PAUSED: _ClassVar[AuditKind]
    AUDIT_KIND_CLOCK_RESUMED: _ClassVar[AuditKind]
    AUDIT_KIND_RESULT_SET: _ClassVar[AuditKind]
    AUDIT_KIND_CONNECTION_REPORTED: _ClassVar[AuditKind]
    AUDIT_KIND_CREDENTIAL_CREATED: _ClassVar[AuditKind]
    AUDIT_KIND_CREDENTIAL_REVOKED: _ClassVar[AuditKind]

class Color(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COLOR_UNSPECIFIED: _ClassVar[Color]
    COLOR_WHITE: _ClassVar[Color]
    COLOR_BLACK: _ClassVar[Color]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_PENDING: _ClassVar[GameStatus]
    GAME_STATUS_ACTIVE: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]
    GAME_STATUS_ABORTED: _ClassVar[GameStatus]

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_STANDARD: _ClassVar[Variant]
    VARIANT_CHESS960: _ClassVar[Variant]

class DrawClaimReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_CLAIM_REASON_UNSPECIFIED: _ClassVar[DrawClaimReason]
    DRAW_CLAIM_REASON_THREEFOLD_REPETITION: _ClassVar[DrawClaimReason]
    DRAW_CLAIM_REASON_FIFTY_MOVES: _ClassVar[DrawClaimReason]

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNSPECIFIED: _ClassVar[Outcome]
    OUTCOME_WHITE_WINS: _ClassVar[Outcome]
    OUTCOME_BLACK_WINS: _ClassVar[Outcome]
    OUTCOME_DRAW: _ClassVar[Outcome]
    OUTCOME_DOUBLE_FORFEIT: _ClassVar[Outcome]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_CHECKMATE: _ClassVar[Termination]
    TERMINATION_RESIGNATION: _ClassVar[Termination]
    TERMINATION_STALEMATE: _ClassVar[Termination]
    TERMINATION_INSUFFICIENT_MATERIAL: _ClassVar[Termination]
    TERMINATION_AGREEMENT: _ClassVar[Termination]
    TERMINATION_THREEFOLD_REPETITION: _ClassVar[Termination]
    TERMINATION_FIFTY_MOVES: _ClassVar[Termination]
    TERMINATION_FIVEFOLD_REPETITION: _ClassVar[Termination]
    TERMINATION_SEVENTY_FIVE_MOVES: _ClassVar[Termination]
    TERMINATION_DEAD_POSITION: _ClassVar[Termination]
    TERMINATION_TIMEOUT: _ClassVar[Termination]
    TERMINATION_TIMEOUT_VS_INSUFFICIENT_MATERIAL: _ClassVar[Termination]
    TERMINATION_TIMEOUT_WITH_PENDING_DRAW_OFFER: _ClassVar[Termination]
    TERMINATION_NO_SHOW: _ClassVar[Termination]
    TERMINATION_FORFEIT: _ClassVar[Termination]
    TERMINATION_ARBITER_DECISION: _ClassVar[Termination]
    TERMINATION_OPPONENT_LEFT: _ClassVar[Termination]

class Forfeit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORFEIT_UNSPECIFIED: _ClassVar[Forfeit]
    FORFEIT_WHITE: _ClassVar[Forfeit]
    FORFEIT_BLACK: _ClassVar[Forfeit]
    FORFEIT_BOTH: _ClassVar[Forfeit]

class RulesProfile(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RULES_PROFILE_UNSPECIFIED: _ClassVar[RulesProfile]
    RULES_PROFILE_FIDE: _ClassVar[RulesProfile]
    RULES_PROFILE_USCF: _ClassVar[RulesProfile]

class DelayMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DELAY_MODE_UNSPECIFIED: _ClassVar[DelayMode]
    DELAY_MODE_SIMPLE: _ClassVar[DelayMode]
    DELAY_MODE_BRONSTEIN: _ClassVar[DelayMode]

class Pace(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PACE_UNSPECIFIED: _ClassVar[Pace]
    PACE_STANDARD: _ClassVar[Pace]
    PACE_RAPID: _ClassVar[Pace]
    PACE_BLITZ: _ClassVar[Pace]

class ScoringPreset(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCORING_PRESET_UNSPECIFIED: _ClassVar[ScoringPreset]
    SCORING_PRESET_CLASSIC: _ClassVar[ScoringPreset]
    SCORING_PRESET_FOOTBALL: _ClassVar[ScoringPreset]

class GameView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_VIEW_UNSPECIFIED: _ClassVar[GameView]
    GAME_VIEW_BASIC: _ClassVar[GameView]
    GAME_VIEW_FULL: _ClassVar[GameView]

class ReplyView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLY_VIEW_UNSPECIFIED: _ClassVar[ReplyView]
    REPLY_VIEW_GAME: _ClassVar[ReplyView]
    REPLY_VIEW_COMPACT: _ClassVar[ReplyView]

class DrawClaimVerdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_CLAIM_VERDICT_UNSPECIFIED: _ClassVar[DrawClaimVerdict]
    DRAW_CLAIM_VERDICT_UPHELD: _ClassVar[DrawClaimVerdict]
    DRAW_CLAIM_VERDICT_REFUSED: _ClassVar[DrawClaimVerdict]
    DRAW_CLAIM_VERDICT_MOOT: _ClassVar[DrawClaimVerdict]

class ClientSignalKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLIENT_SIGNAL_KIND_UNSPECIFIED: _ClassVar[ClientSignalKind]
    CLIENT_SIGNAL_KIND_DISCONNECTED: _ClassVar[ClientSignalKind]
    CLIENT_SIGNAL_KIND_RECONNECTED: _ClassVar[ClientSignalKind]
    CLIENT_SIGNAL_KIND_FOCUS_LOST: _ClassVar[ClientSignalKind]
    CLIENT_SIGNAL_KIND_FOCUS_REGAINED: _ClassVar[ClientSignalKind]

class TieBreakKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIE_BREAK_KIND_UNSPECIFIED: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_DIRECT_ENCOUNTER: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_BUCHHOLZ: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_SONNEBORN_BERGER: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_WINS: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_GAMES_WON: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_GAMES_WITH_BLACK: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_PROGRESSIVE_SCORE: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_AVERAGE_RATING_OF_OPPONENTS: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_KOYA: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_AVERAGE_OF_OPPONENTS_BUCHHOLZ: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_FORE_BUCHHOLZ: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_TOURNAMENT_PERFORMANCE_RATING: _ClassVar[TieBreakKind]
    TIE_BREAK_KIND_AVERAGE_OF_OPPONENTS_PERFORMANCE: _ClassVar[TieBreakKind]

class ByeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BYE_KIND_UNSPECIFIED: _ClassVar[ByeKind]
    BYE_KIND_PAIRING_ALLOCATED: _ClassVar[ByeKind]
    BYE_KIND_FULL_POINT: _ClassVar[ByeKind]
    BYE_KIND_HALF_POINT: _ClassVar[ByeKind]
    BYE_KIND_ZERO_POINT: _ClassVar[ByeKind]
    BYE_KIND_FORFEIT_WIN: _ClassVar[ByeKind]

class TeamScoreKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEAM_SCORE_KIND_UNSPECIFIED: _ClassVar[TeamScoreKind]
    TEAM_SCORE_KIND_MATCH_POINTS: _ClassVar[TeamScoreKind]
    TEAM_SCORE_KIND_GAME_POINTS: _ClassVar[TeamScoreKind]

class MatchOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_OUTCOME_UNSPECIFIED: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_WON: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_DRAWN: _ClassVar[MatchOutcome]
    MATCH_OUTCOME_LOST: _ClassVar[MatchOutcome]

class MatchForfeit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_FORFEIT_UNSPECIFIED: _ClassVar[MatchForfeit]
    MATCH_FORFEIT_FIRST_TEAM: _ClassVar[MatchForfeit]
    MATCH_FORFEIT_SECOND_TEAM: _ClassVar[MatchForfeit]
    MATCH_FORFEIT_BOTH_TEAMS: _ClassVar[MatchForfeit]
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_INVALID_FIELD: ErrorReason
ERROR_REASON_UNPARSABLE_MOVE: ErrorReason
ERROR_REASON_ILLEGAL_MOVE: ErrorReason
ERROR_REASON_MISSING_TOKEN: ErrorReason
ERROR_REASON_NOT_A_SEAT: ErrorReason
ERROR_REASON_NOT_ADMIN: ErrorReason
ERROR_REASON_GAME_NOT_FOUND: ErrorReason
ERROR_REASON_NOT_YOUR_TURN: ErrorReason
ERROR_REASON_GAME_OVER: ErrorReason
ERROR_REASON_GAME_ABORTED: ErrorReason
ERROR_REASON_ABORT_TOO_LATE: ErrorReason
ERROR_REASON_DRAW_OFFER_NOT_ALLOWED: ErrorReason
ERROR_REASON_NO_DRAW_OFFER: ErrorReason
ERROR_REASON_NOT_STARTED: ErrorReason
ERROR_REASON_CLOCK_PAUSED: ErrorReason
ERROR_REASON_CLOCK_NOT_PAUSED: ErrorReason
ERROR_REASON_UNTIMED: ErrorReason
ERROR_REASON_TOKENS_NOT_REISSUABLE: ErrorReason
ERROR_REASON_STALE_PLY: ErrorReason
ERROR_REASON_CONTENTION: ErrorReason
ERROR_REASON_REQUEST_ID_REUSED: ErrorReason
ERROR_REASON_VERSION_AHEAD: ErrorReason
ERROR_REASON_STORAGE_UNAVAILABLE: ErrorReason
ERROR_REASON_SHUTTING_DOWN: ErrorReason
ERROR_REASON_CORRUPT_DATA: ErrorReason
ERROR_REASON_TOO_MANY_STREAMS: ErrorReason
ERROR_REASON_ADMIN_TOKEN_NOT_SET: ErrorReason
ERROR_REASON_HISTORY_REWRITTEN: ErrorReason
ERROR_REASON_OVERLOADED: ErrorReason
ERROR_REASON_RATE_LIMITED: ErrorReason
ERROR_REASON_ROUND_EXISTS: ErrorReason
ERROR_REASON_ROUND_NOT_FOUND: ErrorReason
ERROR_REASON_ABORT_NOT_ALLOWED: ErrorReason
ERROR_REASON_GIVE_TIME_NOT_ALLOWED: ErrorReason
ERROR_REASON_VICTORY_CLAIM_NOT_ALLOWED: ErrorReason
ERROR_REASON_VICTORY_CLAIM_BEFORE_MOVES: ErrorReason
ERROR_REASON_OPPONENT_CONNECTED: ErrorReason
ERROR_REASON_OPPONENT_LEFT_TOO_RECENTLY: ErrorReason
ERROR_REASON_WATCHER_TOO_SLOW: ErrorReason
ERROR_REASON_DRAW_REQUEST_LIMIT: ErrorReason
ERROR_REASON_MALFORMED_REQUEST: ErrorReason
ERROR_REASON_EVENT_FULL: ErrorReason
ERROR_REASON_REPLY_TOO_LARGE: ErrorReason
ERROR_REASON_METADATA_TOO_LARGE: ErrorReason
ERROR_REASON_CREDENTIAL_INVALID: ErrorReason
ERROR_REASON_CREDENTIAL_EXPIRED: ErrorReason
ERROR_REASON_CREDENTIAL_REVOKED: ErrorReason
ERROR_REASON_ROLE_NOT_PERMITTED: ErrorReason
ERROR_REASON_OUT_OF_SCOPE: ErrorReason
ERROR_REASON_CREDENTIAL_NOT_FOUND: ErrorReason
ERROR_REASON_TOO_MANY_CREDENTIALS: ErrorReason
ERROR_REASON_EVENT_NOT_FOUND: ErrorReason
ERROR_REASON_FAIR_PLAY_NOT_RECORDED: ErrorReason
ERROR_REASON_FAIR_PLAY_RECORD_FULL: ErrorReason
ERROR_REASON_TEAM_PAIRING_INVALID: ErrorReason
ERROR_REASON_TEAMS_NOT_FOUND: ErrorReason
ERROR_REASON_TEAMS_CHANGED: ErrorReason
ERROR_REASON_MATCH_NOT_FOUND: ErrorReason
ERROR_REASON_MATCH_NOT_DRAWN: ErrorReason
ERROR_REASON_TIE_BREAK_EXISTS: ErrorReason
ROLE_UNSPECIFIED: Role
ROLE_PLATFORM: Role
ROLE_ARBITER: Role
ROLE_FEED_READER: Role
ROLE_AUDITOR: Role
AUDIT_KIND_UNSPECIFIED: AuditKind
AUDIT_KIND_GAME_CREATED: AuditKind
AUDIT_KIND_GAME_STARTED: AuditKind
AUDIT_KIND_CLOCK_ADJUSTED: AuditKind
AUDIT_KIND_CLOCK_PAUSED: AuditKind
AUDIT_KIND_CLOCK_RESUMED: AuditKind
AUDIT_KIND_RESULT_SET: AuditKind
AUDIT_KIND_CONNECTION_REPORTED: AuditKind
AUDIT_KIND_CREDENTIAL_CREATED: AuditKind
AUDIT_KIND_CREDENTIAL_REVOKED: AuditKind
COLOR_UNSPECIFIED: Color
COLOR_WHITE: Color
COLOR_BLACK: Color
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_PENDING: GameStatus
GAME_STATUS_ACTIVE: GameStatus
GAME_STATUS_FINISHED: GameStatus
GAME_STATUS_ABORTED: GameStatus
VARIANT_UNSPECIFIED: Variant
VARIANT_STANDARD: Variant
VARIANT_CHESS960: Variant
DRAW_CLAIM_REASON_UNSPECIFIED: DrawClaimReason
DRAW_CLAIM_REASON_THREEFOLD_REPETITION: DrawClaimReason
DRAW_CLAIM_REASON_FIFTY_MOVES: DrawClaimReason
OUTCOME_UNSPECIFIED: Outcome
OUTCOME_WHITE_WINS: Outcome
OUTCOME_BLACK_WINS: Outcome
OUTCOME_DRAW: Outcome
OUTCOME_DOUBLE_FORFEIT: Outcome
TERMINATION_UNSPECIFIED: Termination
TERMINATION_CHECKMATE: Termination
TERMINATION_RESIGNATION: Termination
TERMINATION_STALEMATE: Termination
TERMINATION_INSUFFICIENT_MATERIAL: Termination
TERMINATION_AGREEMENT: Termination
TERMINATION_THREEFOLD_REPETITION: Termination
TERMINATION_FIFTY_MOVES: Termination
TERMINATION_FIVEFOLD_REPETITION: Termination
TERMINATION_SEVENTY_FIVE_MOVES: Termination
TERMINATION_DEAD_POSITION: Termination
TERMINATION_TIMEOUT: Termination
TERMINATION_TIMEOUT_VS_INSUFFICIENT_MATERIAL: Termination
TERMINATION_TIMEOUT_WITH_PENDING_DRAW_OFFER: Termination
TERMINATION_NO_SHOW: Termination
TERMINATION_FORFEIT: Termination
TERMINATION_ARBITER_DECISION: Termination
TERMINATION_OPPONENT_LEFT: Termination
FORFEIT_UNSPECIFIED: Forfeit
FORFEIT_WHITE: Forfeit
FORFEIT_BLACK: Forfeit
FORFEIT_BOTH: Forfeit
RULES_PROFILE_UNSPECIFIED: RulesProfile
RULES_PROFILE_FIDE: RulesProfile
RULES_PROFILE_USCF: RulesProfile
DELAY_MODE_UNSPECIFIED: DelayMode
DELAY_MODE_SIMPLE: DelayMode
DELAY_MODE_BRONSTEIN: DelayMode
PACE_UNSPECIFIED: Pace
PACE_STANDARD: Pace
PACE_RAPID: Pace
PACE_BLITZ: Pace
SCORING_PRESET_UNSPECIFIED: ScoringPreset
SCORING_PRESET_CLASSIC: ScoringPreset
SCORING_PRESET_FOOTBALL: ScoringPreset
GAME_VIEW_UNSPECIFIED: GameView
GAME_VIEW_BASIC: GameView
GAME_VIEW_FULL: GameView
REPLY_VIEW_UNSPECIFIED: ReplyView
REPLY_VIEW_GAME: ReplyView
REPLY_VIEW_COMPACT: ReplyView
DRAW_CLAIM_VERDICT_UNSPECIFIED: DrawClaimVerdict
DRAW_CLAIM_VERDICT_UPHELD: DrawClaimVerdict
DRAW_CLAIM_VERDICT_REFUSED: DrawClaimVerdict
DRAW_CLAIM_VERDICT_MOOT: DrawClaimVerdict
CLIENT_SIGNAL_KIND_UNSPECIFIED: ClientSignalKind
CLIENT_SIGNAL_KIND_DISCONNECTED: ClientSignalKind
CLIENT_SIGNAL_KIND_RECONNECTED: ClientSignalKind
CLIENT_SIGNAL_KIND_FOCUS_LOST: ClientSignalKind
CLIENT_SIGNAL_KIND_FOCUS_REGAINED: ClientSignalKind
TIE_BREAK_KIND_UNSPECIFIED: TieBreakKind
TIE_BREAK_KIND_DIRECT_ENCOUNTER: TieBreakKind
TIE_BREAK_KIND_BUCHHOLZ: TieBreakKind
TIE_BREAK_KIND_SONNEBORN_BERGER: TieBreakKind
TIE_BREAK_KIND_WINS: TieBreakKind
TIE_BREAK_KIND_GAMES_WON: TieBreakKind
TIE_BREAK_KIND_GAMES_WITH_BLACK: TieBreakKind
TIE_BREAK_KIND_PROGRESSIVE_SCORE: TieBreakKind
TIE_BREAK_KIND_AVERAGE_RATING_OF_OPPONENTS: TieBreakKind
TIE_BREAK_KIND_KOYA: TieBreakKind
TIE_BREAK_KIND_AVERAGE_OF_OPPONENTS_BUCHHOLZ: TieBreakKind
TIE_BREAK_KIND_FORE_BUCHHOLZ: TieBreakKind
TIE_BREAK_KIND_TOURNAMENT_PERFORMANCE_RATING: TieBreakKind
TIE_BREAK_KIND_AVERAGE_OF_OPPONENTS_PERFORMANCE: TieBreakKind
BYE_KIND_UNSPECIFIED: ByeKind
BYE_KIND_PAIRING_ALLOCATED: ByeKind
BYE_KIND_FULL_POINT: ByeKind
BYE_KIND_HALF_POINT: ByeKind
BYE_KIND_ZERO_POINT: ByeKind
BYE_KIND_FORFEIT_WIN: ByeKind
TEAM_SCORE_KIND_UNSPECIFIED: TeamScoreKind
TEAM_SCORE_KIND_MATCH_POINTS: TeamScoreKind
TEAM_SCORE_KIND_GAME_POINTS: TeamScoreKind
MATCH_OUTCOME_UNSPECIFIED: MatchOutcome
MATCH_OUTCOME_WON: MatchOutcome
MATCH_OUTCOME_DRAWN: MatchOutcome
MATCH_OUTCOME_LOST: MatchOutcome
MATCH_FORFEIT_UNSPECIFIED: MatchForfeit
MATCH_FORFEIT_FIRST_TEAM: MatchForfeit
MATCH_FORFEIT_SECOND_TEAM: MatchForfeit
MATCH_FORFEIT_BOTH_TEAMS: MatchForfeit

class TimeControlPeriod(_message.Message):
    __slots__ = ("time_millis", "moves", "increment_millis", "delay_millis")
    TIME_MILLIS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    DELAY_MILLIS_FIELD_NUMBER: _ClassVar[int]
    time_millis: int
    moves: int
    increment_millis: int
    delay_millis: int
    def __init__(self, time_millis: _Optional[int] = ..., moves: _Optional[int] = ..., increment_millis: _Optional[int] = ..., delay_millis: _Optional[int] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("periods", "delay_mode")
    PERIODS_FIELD_NUMBER: _ClassVar[int]
    DELAY_MODE_FIELD_NUMBER: _ClassVar[int]
    periods: _containers.RepeatedCompositeFieldContainer[TimeControlPeriod]
    delay_mode: DelayMode
    def __init__(self, periods: _Optional[_Iterable[_Union[TimeControlPeriod, _Mapping]]] = ..., delay_mode: _Optional[_Union[DelayMode, str]] = ...) -> None: ...

class Timing(_message.Message):
    __slots__ = ("white", "black", "clock_starts_after_first_moves", "pace")
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    CLOCK_STARTS_AFTER_FIRST_MOVES_FIELD_NUMBER: _ClassVar[int]
    PACE_FIELD_NUMBER: _ClassVar[int]
    white: TimeControl
    black: TimeControl
    clock_starts_after_first_moves: bool
    pace: Pace
    def __init__(self, white: _Optional[_Union[TimeControl, _Mapping]] = ..., black: _Optional[_Union[TimeControl, _Mapping]] = ..., clock_starts_after_first_moves: _Optional[bool] = ..., pace: _Optional[_Union[Pace, str]] = ...) -> None: ...

class LagCompensation(_message.Message):
    __slots__ = ("initial_quota_millis", "max_quota_millis", "quota_gain_millis", "max_move_credit_millis")
    INITIAL_QUOTA_MILLIS_FIELD_NUMBER: _ClassVar[int]
    MAX_QUOTA_MILLIS_FIELD_NUMBER: _ClassVar[int]
    QUOTA_GAIN_MILLIS_FIELD_NUMBER: _ClassVar[int]
    MAX_MOVE_CREDIT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    initial_quota_millis: int
    max_quota_millis: int
    quota_gain_millis: int
    max_move_credit_millis: int
    def __init__(self, initial_quota_millis: _Optional[int] = ..., max_quota_millis: _Optional[int] = ..., quota_gain_millis: _Optional[int] = ..., max_move_credit_millis: _Optional[int] = ...) -> None: ...

class ClockState(_message.Message):
    __slots__ = ("read_time", "white_millis", "black_millis", "running", "paused", "white_period", "black_period", "white_moves_left", "black_moves_left", "delay_left_millis")
    READ_TIME_FIELD_NUMBER: _ClassVar[int]
    WHITE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    BLACK_MILLIS_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    WHITE_PERIOD_FIELD_NUMBER: _ClassVar[int]
    BLACK_PERIOD_FIELD_NUMBER: _ClassVar[int]
    WHITE_MOVES_LEFT_FIELD_NUMBER: _ClassVar[int]
    BLACK_MOVES_LEFT_FIELD_NUMBER: _ClassVar[int]
    DELAY_LEFT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    read_time: _timestamp_pb2.Timestamp
    white_millis: int
    black_millis: int
    running: Color
    paused: bool
    white_period: int
    black_period: int
    white_moves_left: int
    black_moves_left: int
    delay_left_millis: int
    def __init__(self, read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., white_millis: _Optional[int] = ..., black_millis: _Optional[int] = ..., running: _Optional[_Union[Color, str]] = ..., paused: _Optional[bool] = ..., white_period: _Optional[int] = ..., black_period: _Optional[int] = ..., white_moves_left: _Optional[int] = ..., black_moves_left: _Optional[int] = ..., delay_left_millis: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("id", "name", "rating", "title", "fide_id", "team")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FIDE_ID_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    rating: int
    title: str
    fide_id: int
    team: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., rating: _Optional[int] = ..., title: _Optional[str] = ..., fide_id: _Optional[int] = ..., team: _Optional[str] = ...) -> None: ...

class Pairing(_message.Message):
    __slots__ = ("event_id", "round", "board", "match_tie_break")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    MATCH_TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    round: int
    board: int
    match_tie_break: bool
    def __init__(self, event_id: _Optional[str] = ..., round: _Optional[int] = ..., board: _Optional[int] = ..., match_tie_break: _Optional[bool] = ...) -> None: ...

class GameRules(_message.Message):
    __slots__ = ("draw_offers_from_move", "sofia_rules", "profile", "pending_offer_draws_on_flag", "no_abort", "no_give_time", "claim_after_opponent_left_millis")
    DRAW_OFFERS_FROM_MOVE_FIELD_NUMBER: _ClassVar[int]
    SOFIA_RULES_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    PENDING_OFFER_DRAWS_ON_FLAG_FIELD_NUMBER: _ClassVar[int]
    NO_ABORT_FIELD_NUMBER: _ClassVar[int]
    NO_GIVE_TIME_FIELD_NUMBER: _ClassVar[int]
    CLAIM_AFTER_OPPONENT_LEFT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    draw_offers_from_move: int
    sofia_rules: bool
    profile: RulesProfile
    pending_offer_draws_on_flag: bool
    no_abort: bool
    no_give_time: bool
    claim_after_opponent_left_millis: int
    def __init__(self, draw_offers_from_move: _Optional[int] = ..., sofia_rules: _Optional[bool] = ..., profile: _Optional[_Union[RulesProfile, str]] = ..., pending_offer_draws_on_flag: _Optional[bool] = ..., no_abort: _Optional[bool] = ..., no_give_time: _Optional[bool] = ..., claim_after_opponent_left_millis: _Optional[int] = ...) -> None: ...

class PointTable(_message.Message):
    __slots__ = ("win", "draw", "loss")
    WIN_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    LOSS_FIELD_NUMBER: _ClassVar[int]
    win: str
    draw: str
    loss: str
    def __init__(self, win: _Optional[str] = ..., draw: _Optional[str] = ..., loss: _Optional[str] = ...) -> None: ...

class CustomScoring(_message.Message):
    __slots__ = ("white", "black")
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    white: PointTable
    black: PointTable
    def __init__(self, white: _Optional[_Union[PointTable, _Mapping]] = ..., black: _Optional[_Union[PointTable, _Mapping]] = ...) -> None: ...

class Scoring(_message.Message):
    __slots__ = ("preset", "custom", "armageddon")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    ARMAGEDDON_FIELD_NUMBER: _ClassVar[int]
    preset: ScoringPreset
    custom: CustomScoring
    armageddon: bool
    def __init__(self, preset: _Optional[_Union[ScoringPreset, str]] = ..., custom: _Optional[_Union[CustomScoring, _Mapping]] = ..., armageddon: _Optional[bool] = ...) -> None: ...

class ResolvedScoring(_message.Message):
    __slots__ = ("white", "black", "armageddon")
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    ARMAGEDDON_FIELD_NUMBER: _ClassVar[int]
    white: PointTable
    black: PointTable
    armageddon: bool
    def __init__(self, white: _Optional[_Union[PointTable, _Mapping]] = ..., black: _Optional[_Union[PointTable, _Mapping]] = ..., armageddon: _Optional[bool] = ...) -> None: ...

class Score(_message.Message):
    __slots__ = ("white_points", "black_points", "scored_as", "unplayed")
    WHITE_POINTS_FIELD_NUMBER: _ClassVar[int]
    BLACK_POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORED_AS_FIELD_NUMBER: _ClassVar[int]
    UNPLAYED_FIELD_NUMBER: _ClassVar[int]
    white_points: str
    black_points: str
    scored_as: Outcome
    unplayed: bool
    def __init__(self, white_points: _Optional[str] = ..., black_points: _Optional[str] = ..., scored_as: _Optional[_Union[Outcome, str]] = ..., unplayed: _Optional[bool] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("outcome", "termination", "score", "needs_review", "review_reason")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    NEEDS_REVIEW_FIELD_NUMBER: _ClassVar[int]
    REVIEW_REASON_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    termination: Termination
    score: Score
    needs_review: bool
    review_reason: str
    def __init__(self, outcome: _Optional[_Union[Outcome, str]] = ..., termination: _Optional[_Union[Termination, str]] = ..., score: _Optional[_Union[Score, _Mapping]] = ..., needs_review: _Optional[bool] = ..., review_reason: _Optional[str] = ...) -> None: ...

class GameSetup(_message.Message):
    __slots__ = ("white", "black", "pairing", "variant", "initial_fen", "rules", "timing", "scheduled_start_time", "default_time_millis", "scoring", "broadcast_delay_millis", "lag_compensation", "record_fair_play")
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    PAIRING_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FEN_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_START_TIME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TIME_MILLIS_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_DELAY_MILLIS_FIELD_NUMBER: _ClassVar[int]
    LAG_COMPENSATION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FAIR_PLAY_FIELD_NUMBER: _ClassVar[int]
    white: Player
    black: Player
    pairing: Pairing
    variant: Variant
    initial_fen: str
    rules: GameRules
    timing: Timing
    scheduled_start_time: _timestamp_pb2.Timestamp
    default_time_millis: int
    scoring: ResolvedScoring
    broadcast_delay_millis: int
    lag_compensation: LagCompensation
    record_fair_play: bool
    def __init__(self, white: _Optional[_Union[Player, _Mapping]] = ..., black: _Optional[_Union[Player, _Mapping]] = ..., pairing: _Optional[_Union[Pairing, _Mapping]] = ..., variant: _Optional[_Union[Variant, str]] = ..., initial_fen: _Optional[str] = ..., rules: _Optional[_Union[GameRules, _Mapping]] = ..., timing: _Optional[_Union[Timing, _Mapping]] = ..., scheduled_start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., default_time_millis: _Optional[int] = ..., scoring: _Optional[_Union[ResolvedScoring, _Mapping]] = ..., broadcast_delay_millis: _Optional[int] = ..., lag_compensation: _Optional[_Union[LagCompensation, _Mapping]] = ..., record_fair_play: _Optional[bool] = ...) -> None: ...

class MoveRecord(_message.Message):
    __slots__ = ("ply", "uci", "san", "color", "move_time", "time_spent_millis", "clock_millis", "lag_credit_millis")
    PLY_FIELD_NUMBER: _ClassVar[int]
    UCI_FIELD_NUMBER: _ClassVar[int]
    SAN_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    TIME_SPENT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_MILLIS_FIELD_NUMBER: _ClassVar[int]
    LAG_CREDIT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    ply: int
    uci: str
    san: str
    color: Color
    move_time: _timestamp_pb2.Timestamp
    time_spent_millis: int
    clock_millis: int
    lag_credit_millis: int
    def __init__(self, ply: _Optional[int] = ..., uci: _Optional[str] = ..., san: _Optional[str] = ..., color: _Optional[_Union[Color, str]] = ..., move_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time_spent_millis: _Optional[int] = ..., clock_millis: _Optional[int] = ..., lag_credit_millis: _Optional[int] = ...) -> None: ...

class Game(_message.Message):
    __slots__ = ("game_id", "version", "status", "setup", "create_time", "update_time", "fen", "side_to_move", "ply", "in_check", "legal_moves", "last_move", "moves", "result", "draw_offered_by", "aborted_by", "can_claim_threefold", "can_claim_fifty_moves", "halfmove_clock", "repetition_count", "clock", "white_present", "black_present", "start_time", "awaits_start", "white_left_time", "black_left_time")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    FEN_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    IN_CHECK_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    LAST_MOVE_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DRAW_OFFERED_BY_FIELD_NUMBER: _ClassVar[int]
    ABORTED_BY_FIELD_NUMBER: _ClassVar[int]
    CAN_CLAIM_THREEFOLD_FIELD_NUMBER: _ClassVar[int]
    CAN_CLAIM_FIFTY_MOVES_FIELD_NUMBER: _ClassVar[int]
    HALFMOVE_CLOCK_FIELD_NUMBER: _ClassVar[int]
    REPETITION_COUNT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    WHITE_PRESENT_FIELD_NUMBER: _ClassVar[int]
    BLACK_PRESENT_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    AWAITS_START_FIELD_NUMBER: _ClassVar[int]
    WHITE_LEFT_TIME_FIELD_NUMBER: _ClassVar[int]
    BLACK_LEFT_TIME_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    version: int
    status: GameStatus
    setup: GameSetup
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    fen: str
    side_to_move: Color
    ply: int
    in_check: bool
    legal_moves: _containers.RepeatedScalarFieldContainer[str]
    last_move: MoveRecord
    moves: _containers.RepeatedCompositeFieldContainer[MoveRecord]
    result: GameResult
    draw_offered_by: Color
    aborted_by: Color
    can_claim_threefold: bool
    can_claim_fifty_moves: bool
    halfmove_clock: int
    repetition_count: int
    clock: ClockState
    white_present: bool
    black_present: bool
    start_time: _timestamp_pb2.Timestamp
    awaits_start: bool
    white_left_time: _timestamp_pb2.Timestamp
    black_left_time: _timestamp_pb2.Timestamp
    def __init__(self, game_id: _Optional[str] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., setup: _Optional[_Union[GameSetup, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., fen: _Optional[str] = ..., side_to_move: _Optional[_Union[Color, str]] = ..., ply: _Optional[int] = ..., in_check: _Optional[bool] = ..., legal_moves: _Optional[_Iterable[str]] = ..., last_move: _Optional[_Union[MoveRecord, _Mapping]] = ..., moves: _Optional[_Iterable[_Union[MoveRecord, _Mapping]]] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., draw_offered_by: _Optional[_Union[Color, str]] = ..., aborted_by: _Optional[_Union[Color, str]] = ..., can_claim_threefold: _Optional[bool] = ..., can_claim_fifty_moves: _Optional[bool] = ..., halfmove_clock: _Optional[int] = ..., repetition_count: _Optional[int] = ..., clock: _Optional[_Union[ClockState, _Mapping]] = ..., white_present: _Optional[bool] = ..., black_present: _Optional[bool] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., awaits_start: _Optional[bool] = ..., white_left_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., black_left_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("version", "game_id", "event_time", "clock", "game_created", "move_made", "game_ended", "draw_offered", "draw_declined", "draw_claim_refused", "game_aborted", "clock_adjusted", "clock_paused", "clock_resumed", "result_decided", "player_checked_in", "game_started", "connection_reported")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    GAME_CREATED_FIELD_NUMBER: _ClassVar[int]
    MOVE_MADE_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    DRAW_OFFERED_FIELD_NUMBER: _ClassVar[int]
    DRAW_DECLINED_FIELD_NUMBER: _ClassVar[int]
    DRAW_CLAIM_REFUSED_FIELD_NUMBER: _ClassVar[int]
    GAME_ABORTED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_ADJUSTED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_PAUSED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_RESUMED_FIELD_NUMBER: _ClassVar[int]
    RESULT_DECIDED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_CHECKED_IN_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_REPORTED_FIELD_NUMBER: _ClassVar[int]
    version: int
    game_id: str
    event_time: _timestamp_pb2.Timestamp
    clock: ClockState
    game_created: GameCreated
    move_made: MoveMade
    game_ended: GameEnded
    draw_offered: DrawOffered
    draw_declined: DrawDeclined
    draw_claim_refused: DrawClaimRefused
    game_aborted: GameAborted
    clock_adjusted: ClockAdjusted
    clock_paused: ClockPaused
    clock_resumed: ClockResumed
    result_decided: ResultDecided
    player_checked_in: PlayerCheckedIn
    game_started: GameStarted
    connection_reported: ConnectionReported
    def __init__(self, version: _Optional[int] = ..., game_id: _Optional[str] = ..., event_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., clock: _Optional[_Union[ClockState, _Mapping]] = ..., game_created: _Optional[_Union[GameCreated, _Mapping]] = ..., move_made: _Optional[_Union[MoveMade, _Mapping]] = ..., game_ended: _Optional[_Union[GameEnded, _Mapping]] = ..., draw_offered: _Optional[_Union[DrawOffered, _Mapping]] = ..., draw_declined: _Optional[_Union[DrawDeclined, _Mapping]] = ..., draw_claim_refused: _Optional[_Union[DrawClaimRefused, _Mapping]] = ..., game_aborted: _Optional[_Union[GameAborted, _Mapping]] = ..., clock_adjusted: _Optional[_Union[ClockAdjusted, _Mapping]] = ..., clock_paused: _Optional[_Union[ClockPaused, _Mapping]] = ..., clock_resumed: _Optional[_Union[ClockResumed, _Mapping]] = ..., result_decided: _Optional[_Union[ResultDecided, _Mapping]] = ..., player_checked_in: _Optional[_Union[PlayerCheckedIn, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., connection_reported: _Optional[_Union[ConnectionReported, _Mapping]] = ...) -> None: ...

class ConnectionReported(_message.Message):
    __slots__ = ("color", "connected", "by")
    COLOR_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    color: Color
    connected: bool
    by: str
    def __init__(self, color: _Optional[_Union[Color, str]] = ..., connected: _Optional[bool] = ..., by: _Optional[str] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ("by",)
    BY_FIELD_NUMBER: _ClassVar[int]
    by: str
    def __init__(self, by: _Optional[str] = ...) -> None: ...

class GameCreated(_message.Message):
    __slots__ = ("setup", "by")
    SETUP_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    setup: GameSetup
    by: str
    def __init__(self, setup: _Optional[_Union[GameSetup, _Mapping]] = ..., by: _Optional[str] = ...) -> None: ...

class MoveMade(_message.Message):
    __slots__ = ("move", "fen", "side_to_move", "ply", "in_check")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    FEN_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    IN_CHECK_FIELD_NUMBER: _ClassVar[int]
    move: MoveRecord
    fen: str
    side_to_move: Color
    ply: int
    in_check: bool
    def __init__(self, move: _Optional[_Union[MoveRecord, _Mapping]] = ..., fen: _Optional[str] = ..., side_to_move: _Optional[_Union[Color, str]] = ..., ply: _Optional[int] = ..., in_check: _Optional[bool] = ...) -> None: ...

class GameEnded(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: GameResult
    def __init__(self, result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class ResultDecided(_message.Message):
    __slots__ = ("result", "reason", "by")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    result: GameResult
    reason: str
    by: str
    def __init__(self, result: _Optional[_Union[GameResult, _Mapping]] = ..., reason: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class ClockAdjusted(_message.Message):
    __slots__ = ("color", "delta_millis", "reason", "by")
    COLOR_FIELD_NUMBER: _ClassVar[int]
    DELTA_MILLIS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    color: Color
    delta_millis: int
    reason: str
    by: str
    def __init__(self, color: _Optional[_Union[Color, str]] = ..., delta_millis: _Optional[int] = ..., reason: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class ClockPaused(_message.Message):
    __slots__ = ("reason", "by")
    REASON_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    reason: str
    by: str
    def __init__(self, reason: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class ClockResumed(_message.Message):
    __slots__ = ("reason", "by")
    REASON_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    reason: str
    by: str
    def __init__(self, reason: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class DrawOffered(_message.Message):
    __slots__ = ("by",)
    BY_FIELD_NUMBER: _ClassVar[int]
    by: Color
    def __init__(self, by: _Optional[_Union[Color, str]] = ...) -> None: ...

class DrawDeclined(_message.Message):
    __slots__ = ("by",)
    BY_FIELD_NUMBER: _ClassVar[int]
    by: Color
    def __init__(self, by: _Optional[_Union[Color, str]] = ...) -> None: ...

class DrawClaimRefused(_message.Message):
    __slots__ = ("by", "reason", "explanation")
    BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    by: Color
    reason: DrawClaimReason
    explanation: str
    def __init__(self, by: _Optional[_Union[Color, str]] = ..., reason: _Optional[_Union[DrawClaimReason, str]] = ..., explanation: _Optional[str] = ...) -> None: ...

class GameAborted(_message.Message):
    __slots__ = ("by",)
    BY_FIELD_NUMBER: _ClassVar[int]
    by: Color
    def __init__(self, by: _Optional[_Union[Color, str]] = ...) -> None: ...

class PlayerCheckedIn(_message.Message):
    __slots__ = ("color",)
    COLOR_FIELD_NUMBER: _ClassVar[int]
    color: Color
    def __init__(self, color: _Optional[_Union[Color, str]] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("server_time", "version", "clock")
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    server_time: _timestamp_pb2.Timestamp
    version: int
    clock: ClockState
    def __init__(self, server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., version: _Optional[int] = ..., clock: _Optional[_Union[ClockState, _Mapping]] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id", "view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    view: GameView
    def __init__(self, game_id: _Optional[str] = ..., view: _Optional[_Union[GameView, str]] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: Game
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...

class ListMovesRequest(_message.Message):
    __slots__ = ("game_id", "page_size", "page_token", "start_ply")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    START_PLY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    page_size: int
    page_token: str
    start_ply: int
    def __init__(self, game_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., start_ply: _Optional[int] = ...) -> None: ...

class ListMovesResponse(_message.Message):
    __slots__ = ("moves", "next_page_token")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[MoveRecord]
    next_page_token: str
    def __init__(self, moves: _Optional[_Iterable[_Union[MoveRecord, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class MakeMoveRequest(_message.Message):
    __slots__ = ("game_id", "move", "ply", "offer_draw", "lag_millis", "reply_view", "client_move_millis")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    OFFER_DRAW_FIELD_NUMBER: _ClassVar[int]
    LAG_MILLIS_FIELD_NUMBER: _ClassVar[int]
    REPLY_VIEW_FIELD_NUMBER: _ClassVar[int]
    CLIENT_MOVE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    move: str
    ply: int
    offer_draw: bool
    lag_millis: int
    reply_view: ReplyView
    client_move_millis: int
    def __init__(self, game_id: _Optional[str] = ..., move: _Optional[str] = ..., ply: _Optional[int] = ..., offer_draw: _Optional[bool] = ..., lag_millis: _Optional[int] = ..., reply_view: _Optional[_Union[ReplyView, str]] = ..., client_move_millis: _Optional[int] = ...) -> None: ...

class MakeMoveResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ResignGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ResignGameResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class OfferDrawRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class OfferDrawResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class AcceptDrawRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class AcceptDrawResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class DeclineDrawRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class DeclineDrawResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ClaimDrawRequest(_message.Message):
    __slots__ = ("game_id", "reason", "move", "ply")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    reason: DrawClaimReason
    move: str
    ply: int
    def __init__(self, game_id: _Optional[str] = ..., reason: _Optional[_Union[DrawClaimReason, str]] = ..., move: _Optional[str] = ..., ply: _Optional[int] = ...) -> None: ...

class ClaimDrawResponse(_message.Message):
    __slots__ = ("game", "verdict", "explanation", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    verdict: DrawClaimVerdict
    explanation: str
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., verdict: _Optional[_Union[DrawClaimVerdict, str]] = ..., explanation: _Optional[str] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class AbortGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class AbortGameResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class CheckInRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class CheckInResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ClaimVictoryRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ClaimVictoryResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ReportConnectionRequest(_message.Message):
    __slots__ = ("game_id", "color", "connected")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    color: Color
    connected: bool
    def __init__(self, game_id: _Optional[str] = ..., color: _Optional[_Union[Color, str]] = ..., connected: _Optional[bool] = ...) -> None: ...

class ReportConnectionResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ReportClientSignalRequest(_message.Message):
    __slots__ = ("game_id", "kind", "client_time")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TIME_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: ClientSignalKind
    client_time: _timestamp_pb2.Timestamp
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[ClientSignalKind, str]] = ..., client_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ReportClientSignalResponse(_message.Message):
    __slots__ = ("recorded", "received_time", "signals_recorded")
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_TIME_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_RECORDED_FIELD_NUMBER: _ClassVar[int]
    recorded: bool
    received_time: _timestamp_pb2.Timestamp
    signals_recorded: int
    def __init__(self, recorded: _Optional[bool] = ..., received_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., signals_recorded: _Optional[int] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "after_version", "resume_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    after_version: int
    resume_token: str
    def __init__(self, game_id: _Optional[str] = ..., after_version: _Optional[int] = ..., resume_token: _Optional[str] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("snapshot", "event", "heartbeat", "resume_token")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    snapshot: Game
    event: GameEvent
    heartbeat: Heartbeat
    resume_token: str
    def __init__(self, snapshot: _Optional[_Union[Game, _Mapping]] = ..., event: _Optional[_Union[GameEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., resume_token: _Optional[str] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("event_id", "status", "page_size", "page_token", "view", "needs_review")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    NEEDS_REVIEW_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    status: GameStatus
    page_size: int
    page_token: str
    view: GameView
    needs_review: bool
    def __init__(self, event_id: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., view: _Optional[_Union[GameView, str]] = ..., needs_review: _Optional[bool] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[Game]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[Game, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetStandingsRequest(_message.Message):
    __slots__ = ("event_id", "tie_breaks", "total_rounds", "byes", "ratings", "page_size", "page_token")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    tie_breaks: _containers.RepeatedCompositeFieldContainer[TieBreak]
    total_rounds: int
    byes: _containers.RepeatedCompositeFieldContainer[Bye]
    ratings: _containers.RepeatedCompositeFieldContainer[PlayerRating]
    page_size: int
    page_token: str
    def __init__(self, event_id: _Optional[str] = ..., tie_breaks: _Optional[_Iterable[_Union[TieBreak, _Mapping]]] = ..., total_rounds: _Optional[int] = ..., byes: _Optional[_Iterable[_Union[Bye, _Mapping]]] = ..., ratings: _Optional[_Iterable[_Union[PlayerRating, _Mapping]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class TieBreak(_message.Message):
    __slots__ = ("kind", "cut_lowest", "cut_highest")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CUT_LOWEST_FIELD_NUMBER: _ClassVar[int]
    CUT_HIGHEST_FIELD_NUMBER: _ClassVar[int]
    kind: TieBreakKind
    cut_lowest: int
    cut_highest: int
    def __init__(self, kind: _Optional[_Union[TieBreakKind, str]] = ..., cut_lowest: _Optional[int] = ..., cut_highest: _Optional[int] = ...) -> None: ...

class Bye(_message.Message):
    __slots__ = ("player_id", "round", "kind")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    round: int
    kind: ByeKind
    def __init__(self, player_id: _Optional[str] = ..., round: _Optional[int] = ..., kind: _Optional[_Union[ByeKind, str]] = ...) -> None: ...

class PlayerRating(_message.Message):
    __slots__ = ("player_id", "rating")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    rating: int
    def __init__(self, player_id: _Optional[str] = ..., rating: _Optional[int] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "player", "points", "games_played", "wins", "draws", "losses", "forfeit_wins", "forfeit_losses", "direct_encounter", "buchholz", "buchholz_cut1", "sonneborn_berger", "tie_break_values")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_PLAYED_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_WINS_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_LOSSES_FIELD_NUMBER: _ClassVar[int]
    DIRECT_ENCOUNTER_FIELD_NUMBER: _ClassVar[int]
    BUCHHOLZ_FIELD_NUMBER: _ClassVar[int]
    BUCHHOLZ_CUT1_FIELD_NUMBER: _ClassVar[int]
    SONNEBORN_BERGER_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_VALUES_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player: Player
    points: str
    games_played: int
    wins: int
    draws: int
    losses: int
    forfeit_wins: int
    forfeit_losses: int
    direct_encounter: str
    buchholz: str
    buchholz_cut1: str
    sonneborn_berger: str
    tie_break_values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rank: _Optional[int] = ..., player: _Optional[_Union[Player, _Mapping]] = ..., points: _Optional[str] = ..., games_played: _Optional[int] = ..., wins: _Optional[int] = ..., draws: _Optional[int] = ..., losses: _Optional[int] = ..., forfeit_wins: _Optional[int] = ..., forfeit_losses: _Optional[int] = ..., direct_encounter: _Optional[str] = ..., buchholz: _Optional[str] = ..., buchholz_cut1: _Optional[str] = ..., sonneborn_berger: _Optional[str] = ..., tie_break_values: _Optional[_Iterable[str]] = ...) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("standings", "games_counted", "tie_breaks", "next_page_token", "offered_tie_breaks")
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    GAMES_COUNTED_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    OFFERED_TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    games_counted: int
    tie_breaks: _containers.RepeatedCompositeFieldContainer[TieBreak]
    next_page_token: str
    offered_tie_breaks: _containers.RepeatedCompositeFieldContainer[OfferedTieBreak]
    def __init__(self, standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., games_counted: _Optional[int] = ..., tie_breaks: _Optional[_Iterable[_Union[TieBreak, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., offered_tie_breaks: _Optional[_Iterable[_Union[OfferedTieBreak, _Mapping]]] = ...) -> None: ...

class OfferedTieBreak(_message.Message):
    __slots__ = ("kind", "code", "takes_cuts")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    TAKES_CUTS_FIELD_NUMBER: _ClassVar[int]
    kind: TieBreakKind
    code: str
    takes_cuts: bool
    def __init__(self, kind: _Optional[_Union[TieBreakKind, str]] = ..., code: _Optional[str] = ..., takes_cuts: _Optional[bool] = ...) -> None: ...

class TeamMatchPoints(_message.Message):
    __slots__ = ("win", "draw", "loss", "tie_break_win", "tie_break_loss")
    WIN_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    LOSS_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_WIN_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_LOSS_FIELD_NUMBER: _ClassVar[int]
    win: str
    draw: str
    loss: str
    tie_break_win: str
    tie_break_loss: str
    def __init__(self, win: _Optional[str] = ..., draw: _Optional[str] = ..., loss: _Optional[str] = ..., tie_break_win: _Optional[str] = ..., tie_break_loss: _Optional[str] = ...) -> None: ...

class GetTeamStandingsRequest(_message.Message):
    __slots__ = ("event_id", "primary_score", "tie_breaks", "match_points")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_SCORE_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    primary_score: TeamScoreKind
    tie_breaks: _containers.RepeatedScalarFieldContainer[str]
    match_points: TeamMatchPoints
    def __init__(self, event_id: _Optional[str] = ..., primary_score: _Optional[_Union[TeamScoreKind, str]] = ..., tie_breaks: _Optional[_Iterable[str]] = ..., match_points: _Optional[_Union[TeamMatchPoints, _Mapping]] = ...) -> None: ...

class TeamStanding(_message.Message):
    __slots__ = ("rank", "team", "match_points", "game_points", "matches", "tie_break_values", "team_id")
    RANK_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    GAME_POINTS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_VALUES_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    rank: int
    team: str
    match_points: str
    game_points: str
    matches: int
    tie_break_values: _containers.RepeatedScalarFieldContainer[str]
    team_id: str
    def __init__(self, rank: _Optional[int] = ..., team: _Optional[str] = ..., match_points: _Optional[str] = ..., game_points: _Optional[str] = ..., matches: _Optional[int] = ..., tie_break_values: _Optional[_Iterable[str]] = ..., team_id: _Optional[str] = ...) -> None: ...

class GetTeamStandingsResponse(_message.Message):
    __slots__ = ("standings", "tie_breaks", "matches_counted", "matches_in_progress", "boards")
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_COUNTED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_IN_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[TeamStanding]
    tie_breaks: _containers.RepeatedScalarFieldContainer[str]
    matches_counted: int
    matches_in_progress: int
    boards: _containers.RepeatedCompositeFieldContainer[TeamBoardStanding]
    def __init__(self, standings: _Optional[_Iterable[_Union[TeamStanding, _Mapping]]] = ..., tie_breaks: _Optional[_Iterable[str]] = ..., matches_counted: _Optional[int] = ..., matches_in_progress: _Optional[int] = ..., boards: _Optional[_Iterable[_Union[TeamBoardStanding, _Mapping]]] = ...) -> None: ...

class TeamBoardStanding(_message.Message):
    __slots__ = ("board", "player", "team", "points", "games", "performance", "team_id")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PERFORMANCE_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    board: int
    player: Player
    team: str
    points: str
    games: int
    performance: int
    team_id: str
    def __init__(self, board: _Optional[int] = ..., player: _Optional[_Union[Player, _Mapping]] = ..., team: _Optional[str] = ..., points: _Optional[str] = ..., games: _Optional[int] = ..., performance: _Optional[int] = ..., team_id: _Optional[str] = ...) -> None: ...

class ExportPgnRequest(_message.Message):
    __slots__ = ("game_id", "event_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    event_id: str
    def __init__(self, game_id: _Optional[str] = ..., event_id: _Optional[str] = ...) -> None: ...

class ExportPgnResponse(_message.Message):
    __slots__ = ("game_id", "pgn")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PGN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    pgn: str
    def __init__(self, game_id: _Optional[str] = ..., pgn: _Optional[str] = ...) -> None: ...

class ExportTrfRequest(_message.Message):
    __slots__ = ("event_id", "total_rounds", "byes")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    total_rounds: int
    byes: _containers.RepeatedCompositeFieldContainer[Bye]
    def __init__(self, event_id: _Optional[str] = ..., total_rounds: _Optional[int] = ..., byes: _Optional[_Iterable[_Union[Bye, _Mapping]]] = ...) -> None: ...

class ExportTrfResponse(_message.Message):
    __slots__ = ("trf",)
    TRF_FIELD_NUMBER: _ClassVar[int]
    trf: str
    def __init__(self, trf: _Optional[str] = ...) -> None: ...

class WatchEventRequest(_message.Message):
    __slots__ = ("event_id", "after_cursor", "round")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_CURSOR_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    after_cursor: str
    round: int
    def __init__(self, event_id: _Optional[str] = ..., after_cursor: _Optional[str] = ..., round: _Optional[int] = ...) -> None: ...

class WatchEventResponse(_message.Message):
    __slots__ = ("event", "heartbeat", "match_score", "cursor")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    MATCH_SCORE_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    event: GameEvent
    heartbeat: Heartbeat
    match_score: MatchScore
    cursor: str
    def __init__(self, event: _Optional[_Union[GameEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., match_score: _Optional[_Union[MatchScore, _Mapping]] = ..., cursor: _Optional[str] = ...) -> None: ...

class MatchScore(_message.Message):
    __slots__ = ("round", "table", "first_team_id", "second_team_id", "first_team_points", "second_team_points", "boards", "boards_decided", "game_id", "tie_break_game_id", "tie_break_winner_team_id")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    SECOND_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEAM_POINTS_FIELD_NUMBER: _ClassVar[int]
    SECOND_TEAM_POINTS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_DECIDED_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_WINNER_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    round: int
    table: int
    first_team_id: str
    second_team_id: str
    first_team_points: str
    second_team_points: str
    boards: int
    boards_decided: int
    game_id: str
    tie_break_game_id: str
    tie_break_winner_team_id: str
    def __init__(self, round: _Optional[int] = ..., table: _Optional[int] = ..., first_team_id: _Optional[str] = ..., second_team_id: _Optional[str] = ..., first_team_points: _Optional[str] = ..., second_team_points: _Optional[str] = ..., boards: _Optional[int] = ..., boards_decided: _Optional[int] = ..., game_id: _Optional[str] = ..., tie_break_game_id: _Optional[str] = ..., tie_break_winner_team_id: _Optional[str] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("request_id", "white", "black", "pairing", "variant", "initial_fen", "chess960_position", "rules", "time_control", "black_time_control", "clock_starts_after_first_moves", "scheduled_start_time", "default_time_millis", "scoring", "broadcast_delay_millis", "lag_compensation", "record_fair_play")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    PAIRING_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FEN_FIELD_NUMBER: _ClassVar[int]
    CHESS960_POSITION_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    BLACK_TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    CLOCK_STARTS_AFTER_FIRST_MOVES_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_START_TIME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TIME_MILLIS_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_DELAY_MILLIS_FIELD_NUMBER: _ClassVar[int]
    LAG_COMPENSATION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FAIR_PLAY_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    white: Player
    black: Player
    pairing: Pairing
    variant: Variant
    initial_fen: str
    chess960_position: int
    rules: GameRules
    time_control: TimeControl
    black_time_control: TimeControl
    clock_starts_after_first_moves: bool
    scheduled_start_time: _timestamp_pb2.Timestamp
    default_time_millis: int
    scoring: Scoring
    broadcast_delay_millis: int
    lag_compensation: LagCompensation
    record_fair_play: bool
    def __init__(self, request_id: _Optional[str] = ..., white: _Optional[_Union[Player, _Mapping]] = ..., black: _Optional[_Union[Player, _Mapping]] = ..., pairing: _Optional[_Union[Pairing, _Mapping]] = ..., variant: _Optional[_Union[Variant, str]] = ..., initial_fen: _Optional[str] = ..., chess960_position: _Optional[int] = ..., rules: _Optional[_Union[GameRules, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., black_time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., clock_starts_after_first_moves: _Optional[bool] = ..., scheduled_start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., default_time_millis: _Optional[int] = ..., scoring: _Optional[_Union[Scoring, _Mapping]] = ..., broadcast_delay_millis: _Optional[int] = ..., lag_compensation: _Optional[_Union[LagCompensation, _Mapping]] = ..., record_fair_play: _Optional[bool] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game", "white_token", "black_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    WHITE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BLACK_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: Game
    white_token: str
    black_token: str
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., white_token: _Optional[str] = ..., black_token: _Optional[str] = ...) -> None: ...

class AdjustClockRequest(_message.Message):
    __slots__ = ("request_id", "game_id", "color", "delta_millis", "reason", "players_request")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    DELTA_MILLIS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_REQUEST_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    color: Color
    delta_millis: int
    reason: str
    players_request: bool
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., color: _Optional[_Union[Color, str]] = ..., delta_millis: _Optional[int] = ..., reason: _Optional[str] = ..., players_request: _Optional[bool] = ...) -> None: ...

class AdjustClockResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class PauseClockRequest(_message.Message):
    __slots__ = ("request_id", "game_id", "reason")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    reason: str
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PauseClockResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ResumeClockRequest(_message.Message):
    __slots__ = ("request_id", "game_id", "reason")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    reason: str
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ResumeClockResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class PlayedResult(_message.Message):
    __slots__ = ("outcome", "termination")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    termination: Termination
    def __init__(self, outcome: _Optional[_Union[Outcome, str]] = ..., termination: _Optional[_Union[Termination, str]] = ...) -> None: ...

class SetGameResultRequest(_message.Message):
    __slots__ = ("request_id", "game_id", "played", "forfeit", "reason")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    played: PlayedResult
    forfeit: Forfeit
    reason: str
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., played: _Optional[_Union[PlayedResult, _Mapping]] = ..., forfeit: _Optional[_Union[Forfeit, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class SetGameResultResponse(_message.Message):
    __slots__ = ("game", "events")
    GAME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game: Game
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ExportAuditLogRequest(_message.Message):
    __slots__ = ("event_id",)
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    def __init__(self, event_id: _Optional[str] = ...) -> None: ...

class ExportAuditLogResponse(_message.Message):
    __slots__ = ("json_lines",)
    JSON_LINES_FIELD_NUMBER: _ClassVar[int]
    json_lines: str
    def __init__(self, json_lines: _Optional[str] = ...) -> None: ...

class ExportFairPlayRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class FairPlaySummary(_message.Message):
    __slots__ = ("disconnections", "disconnected_millis", "disconnected_now", "focus_losses", "unfocused_millis", "unfocused_moves")
    DISCONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTED_MILLIS_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTED_NOW_FIELD_NUMBER: _ClassVar[int]
    FOCUS_LOSSES_FIELD_NUMBER: _ClassVar[int]
    UNFOCUSED_MILLIS_FIELD_NUMBER: _ClassVar[int]
    UNFOCUSED_MOVES_FIELD_NUMBER: _ClassVar[int]
    disconnections: int
    disconnected_millis: int
    disconnected_now: bool
    focus_losses: int
    unfocused_millis: int
    unfocused_moves: int
    def __init__(self, disconnections: _Optional[int] = ..., disconnected_millis: _Optional[int] = ..., disconnected_now: _Optional[bool] = ..., focus_losses: _Optional[int] = ..., unfocused_millis: _Optional[int] = ..., unfocused_moves: _Optional[int] = ...) -> None: ...

class ExportFairPlayResponse(_message.Message):
    __slots__ = ("json", "pgn", "white", "black")
    JSON_FIELD_NUMBER: _ClassVar[int]
    PGN_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    json: str
    pgn: str
    white: FairPlaySummary
    black: FairPlaySummary
    def __init__(self, json: _Optional[str] = ..., pgn: _Optional[str] = ..., white: _Optional[_Union[FairPlaySummary, _Mapping]] = ..., black: _Optional[_Union[FairPlaySummary, _Mapping]] = ...) -> None: ...

class InspectGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class InspectGameResponse(_message.Message):
    __slots__ = ("state_json", "events_json", "state_bytes", "archived_through", "archive_bytes", "log_bytes")
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    EVENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_BYTES_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_THROUGH_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_BYTES_FIELD_NUMBER: _ClassVar[int]
    LOG_BYTES_FIELD_NUMBER: _ClassVar[int]
    state_json: str
    events_json: _containers.RepeatedScalarFieldContainer[str]
    state_bytes: int
    archived_through: int
    archive_bytes: int
    log_bytes: int
    def __init__(self, state_json: _Optional[str] = ..., events_json: _Optional[_Iterable[str]] = ..., state_bytes: _Optional[int] = ..., archived_through: _Optional[int] = ..., archive_bytes: _Optional[int] = ..., log_bytes: _Optional[int] = ...) -> None: ...

class RoundSettings(_message.Message):
    __slots__ = ("variant", "initial_fen", "chess960_position", "rules", "time_control", "black_time_control", "clock_starts_after_first_moves", "scheduled_start_time", "default_time_millis", "scoring", "broadcast_delay_millis", "lag_compensation", "record_fair_play")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FEN_FIELD_NUMBER: _ClassVar[int]
    CHESS960_POSITION_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    BLACK_TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    CLOCK_STARTS_AFTER_FIRST_MOVES_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_START_TIME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TIME_MILLIS_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_DELAY_MILLIS_FIELD_NUMBER: _ClassVar[int]
    LAG_COMPENSATION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FAIR_PLAY_FIELD_NUMBER: _ClassVar[int]
    variant: Variant
    initial_fen: str
    chess960_position: int
    rules: GameRules
    time_control: TimeControl
    black_time_control: TimeControl
    clock_starts_after_first_moves: bool
    scheduled_start_time: _timestamp_pb2.Timestamp
    default_time_millis: int
    scoring: Scoring
    broadcast_delay_millis: int
    lag_compensation: LagCompensation
    record_fair_play: bool
    def __init__(self, variant: _Optional[_Union[Variant, str]] = ..., initial_fen: _Optional[str] = ..., chess960_position: _Optional[int] = ..., rules: _Optional[_Union[GameRules, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., black_time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., clock_starts_after_first_moves: _Optional[bool] = ..., scheduled_start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., default_time_millis: _Optional[int] = ..., scoring: _Optional[_Union[Scoring, _Mapping]] = ..., broadcast_delay_millis: _Optional[int] = ..., lag_compensation: _Optional[_Union[LagCompensation, _Mapping]] = ..., record_fair_play: _Optional[bool] = ...) -> None: ...

class BoardOverrides(_message.Message):
    __slots__ = ("initial_fen", "chess960_position", "rules", "time_control", "black_time_control", "scoring")
    INITIAL_FEN_FIELD_NUMBER: _ClassVar[int]
    CHESS960_POSITION_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    BLACK_TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    initial_fen: str
    chess960_position: int
    rules: GameRules
    time_control: TimeControl
    black_time_control: TimeControl
    scoring: Scoring
    def __init__(self, initial_fen: _Optional[str] = ..., chess960_position: _Optional[int] = ..., rules: _Optional[_Union[GameRules, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., black_time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., scoring: _Optional[_Union[Scoring, _Mapping]] = ...) -> None: ...

class RoundBoard(_message.Message):
    __slots__ = ("board", "white", "black", "overrides")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    board: int
    white: Player
    black: Player
    overrides: BoardOverrides
    def __init__(self, board: _Optional[int] = ..., white: _Optional[_Union[Player, _Mapping]] = ..., black: _Optional[_Union[Player, _Mapping]] = ..., overrides: _Optional[_Union[BoardOverrides, _Mapping]] = ...) -> None: ...

class RoundBye(_message.Message):
    __slots__ = ("player", "kind")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    player: Player
    kind: ByeKind
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ..., kind: _Optional[_Union[ByeKind, str]] = ...) -> None: ...

class Round(_message.Message):
    __slots__ = ("event_id", "round", "board_count", "byes", "create_time", "start_time", "started_by", "players", "forbidden_pairs", "accelerations", "matches", "team_byes", "tie_breaks")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BOARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    STARTED_BY_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_PAIRS_FIELD_NUMBER: _ClassVar[int]
    ACCELERATIONS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    TEAM_BYES_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    round: int
    board_count: int
    byes: _containers.RepeatedCompositeFieldContainer[RoundBye]
    create_time: _timestamp_pb2.Timestamp
    start_time: _timestamp_pb2.Timestamp
    started_by: str
    players: _containers.RepeatedCompositeFieldContainer[Player]
    forbidden_pairs: _containers.RepeatedCompositeFieldContainer[ForbiddenPair]
    accelerations: _containers.RepeatedCompositeFieldContainer[Acceleration]
    matches: _containers.RepeatedCompositeFieldContainer[RoundMatch]
    team_byes: _containers.RepeatedCompositeFieldContainer[TeamBye]
    tie_breaks: _containers.RepeatedCompositeFieldContainer[MatchTieBreakGame]
    def __init__(self, event_id: _Optional[str] = ..., round: _Optional[int] = ..., board_count: _Optional[int] = ..., byes: _Optional[_Iterable[_Union[RoundBye, _Mapping]]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_by: _Optional[str] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., forbidden_pairs: _Optional[_Iterable[_Union[ForbiddenPair, _Mapping]]] = ..., accelerations: _Optional[_Iterable[_Union[Acceleration, _Mapping]]] = ..., matches: _Optional[_Iterable[_Union[RoundMatch, _Mapping]]] = ..., team_byes: _Optional[_Iterable[_Union[TeamBye, _Mapping]]] = ..., tie_breaks: _Optional[_Iterable[_Union[MatchTieBreakGame, _Mapping]]] = ...) -> None: ...

class MatchTieBreakGame(_message.Message):
    __slots__ = ("table", "game_id", "white", "black", "white_team_id", "black_team_id")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    WHITE_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    BLACK_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    table: int
    game_id: str
    white: Player
    black: Player
    white_team_id: str
    black_team_id: str
    def __init__(self, table: _Optional[int] = ..., game_id: _Optional[str] = ..., white: _Optional[_Union[Player, _Mapping]] = ..., black: _Optional[_Union[Player, _Mapping]] = ..., white_team_id: _Optional[str] = ..., black_team_id: _Optional[str] = ...) -> None: ...

class CreateMatchTieBreakRequest(_message.Message):
    __slots__ = ("event_id", "round", "table", "white_player_id", "black_player_id", "settings")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    WHITE_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BLACK_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    round: int
    table: int
    white_player_id: str
    black_player_id: str
    settings: RoundSettings
    def __init__(self, event_id: _Optional[str] = ..., round: _Optional[int] = ..., table: _Optional[int] = ..., white_player_id: _Optional[str] = ..., black_player_id: _Optional[str] = ..., settings: _Optional[_Union[RoundSettings, _Mapping]] = ...) -> None: ...

class CreateMatchTieBreakResponse(_message.Message):
    __slots__ = ("tie_break", "white_token", "black_token")
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    WHITE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BLACK_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tie_break: MatchTieBreakGame
    white_token: str
    black_token: str
    def __init__(self, tie_break: _Optional[_Union[MatchTieBreakGame, _Mapping]] = ..., white_token: _Optional[str] = ..., black_token: _Optional[str] = ...) -> None: ...

class RoundGame(_message.Message):
    __slots__ = ("board", "game_id", "white", "black", "white_token", "black_token")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    WHITE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BLACK_TOKEN_FIELD_NUMBER: _ClassVar[int]
    board: int
    game_id: str
    white: Player
    black: Player
    white_token: str
    black_token: str
    def __init__(self, board: _Optional[int] = ..., game_id: _Optional[str] = ..., white: _Optional[_Union[Player, _Mapping]] = ..., black: _Optional[_Union[Player, _Mapping]] = ..., white_token: _Optional[str] = ..., black_token: _Optional[str] = ...) -> None: ...

class CreateRoundRequest(_message.Message):
    __slots__ = ("request_id", "event_id", "round", "settings", "boards", "byes", "players", "forbidden_pairs", "accelerations", "team_round", "matches", "team_byes")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_PAIRS_FIELD_NUMBER: _ClassVar[int]
    ACCELERATIONS_FIELD_NUMBER: _ClassVar[int]
    TEAM_ROUND_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    TEAM_BYES_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    event_id: str
    round: int
    settings: RoundSettings
    boards: _containers.RepeatedCompositeFieldContainer[RoundBoard]
    byes: _containers.RepeatedCompositeFieldContainer[RoundBye]
    players: _containers.RepeatedCompositeFieldContainer[Player]
    forbidden_pairs: _containers.RepeatedCompositeFieldContainer[ForbiddenPair]
    accelerations: _containers.RepeatedCompositeFieldContainer[Acceleration]
    team_round: bool
    matches: _containers.RepeatedCompositeFieldContainer[RoundMatch]
    team_byes: _containers.RepeatedCompositeFieldContainer[TeamBye]
    def __init__(self, request_id: _Optional[str] = ..., event_id: _Optional[str] = ..., round: _Optional[int] = ..., settings: _Optional[_Union[RoundSettings, _Mapping]] = ..., boards: _Optional[_Iterable[_Union[RoundBoard, _Mapping]]] = ..., byes: _Optional[_Iterable[_Union[RoundBye, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., forbidden_pairs: _Optional[_Iterable[_Union[ForbiddenPair, _Mapping]]] = ..., accelerations: _Optional[_Iterable[_Union[Acceleration, _Mapping]]] = ..., team_round: _Optional[bool] = ..., matches: _Optional[_Iterable[_Union[RoundMatch, _Mapping]]] = ..., team_byes: _Optional[_Iterable[_Union[TeamBye, _Mapping]]] = ...) -> None: ...

class TeamBye(_message.Message):
    __slots__ = ("team_id", "outcome", "game_points")
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_POINTS_FIELD_NUMBER: _ClassVar[int]
    team_id: str
    outcome: MatchOutcome
    game_points: str
    def __init__(self, team_id: _Optional[str] = ..., outcome: _Optional[_Union[MatchOutcome, str]] = ..., game_points: _Optional[str] = ...) -> None: ...

class RoundMatch(_message.Message):
    __slots__ = ("table", "first_team_id", "second_team_id", "first_team_players", "second_team_players", "first_team_color", "forfeit")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    SECOND_TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEAM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SECOND_TEAM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEAM_COLOR_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    table: int
    first_team_id: str
    second_team_id: str
    first_team_players: _containers.RepeatedScalarFieldContainer[str]
    second_team_players: _containers.RepeatedScalarFieldContainer[str]
    first_team_color: Color
    forfeit: MatchForfeit
    def __init__(self, table: _Optional[int] = ..., first_team_id: _Optional[str] = ..., second_team_id: _Optional[str] = ..., first_team_players: _Optional[_Iterable[str]] = ..., second_team_players: _Optional[_Iterable[str]] = ..., first_team_color: _Optional[_Union[Color, str]] = ..., forfeit: _Optional[_Union[MatchForfeit, str]] = ...) -> None: ...

class Team(_message.Message):
    __slots__ = ("id", "name", "players")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    players: _containers.RepeatedCompositeFieldContainer[Player]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ...) -> None: ...

class TeamRegistration(_message.Message):
    __slots__ = ("event_id", "boards", "teams", "version", "update_time", "updated_by")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BY_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    boards: int
    teams: _containers.RepeatedCompositeFieldContainer[Team]
    version: int
    update_time: _timestamp_pb2.Timestamp
    updated_by: str
    def __init__(self, event_id: _Optional[str] = ..., boards: _Optional[int] = ..., teams: _Optional[_Iterable[_Union[Team, _Mapping]]] = ..., version: _Optional[int] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_by: _Optional[str] = ...) -> None: ...

class RegisterTeamsRequest(_message.Message):
    __slots__ = ("event_id", "boards", "teams", "expected_version")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    boards: int
    teams: _containers.RepeatedCompositeFieldContainer[Team]
    expected_version: int
    def __init__(self, event_id: _Optional[str] = ..., boards: _Optional[int] = ..., teams: _Optional[_Iterable[_Union[Team, _Mapping]]] = ..., expected_version: _Optional[int] = ...) -> None: ...

class RegisterTeamsResponse(_message.Message):
    __slots__ = ("registration",)
    REGISTRATION_FIELD_NUMBER: _ClassVar[int]
    registration: TeamRegistration
    def __init__(self, registration: _Optional[_Union[TeamRegistration, _Mapping]] = ...) -> None: ...

class GetTeamsRequest(_message.Message):
    __slots__ = ("event_id",)
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    def __init__(self, event_id: _Optional[str] = ...) -> None: ...

class GetTeamsResponse(_message.Message):
    __slots__ = ("registration",)
    REGISTRATION_FIELD_NUMBER: _ClassVar[int]
    registration: TeamRegistration
    def __init__(self, registration: _Optional[_Union[TeamRegistration, _Mapping]] = ...) -> None: ...

class ForbiddenPair(_message.Message):
    __slots__ = ("first_player_id", "second_player_id")
    FIRST_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SECOND_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    first_player_id: str
    second_player_id: str
    def __init__(self, first_player_id: _Optional[str] = ..., second_player_id: _Optional[str] = ...) -> None: ...

class Acceleration(_message.Message):
    __slots__ = ("player_id", "points", "first_round", "last_round")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    FIRST_ROUND_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    points: str
    first_round: int
    last_round: int
    def __init__(self, player_id: _Optional[str] = ..., points: _Optional[str] = ..., first_round: _Optional[int] = ..., last_round: _Optional[int] = ...) -> None: ...

class CreateRoundResponse(_message.Message):
    __slots__ = ("round", "games")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    round: Round
    games: _containers.RepeatedCompositeFieldContainer[RoundGame]
    def __init__(self, round: _Optional[_Union[Round, _Mapping]] = ..., games: _Optional[_Iterable[_Union[RoundGame, _Mapping]]] = ...) -> None: ...

class StartRoundRequest(_message.Message):
    __slots__ = ("event_id", "round")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    round: int
    def __init__(self, event_id: _Optional[str] = ..., round: _Optional[int] = ...) -> None: ...

class StartRoundResponse(_message.Message):
    __slots__ = ("round", "started_games", "already_started_games", "finished_games")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    STARTED_GAMES_FIELD_NUMBER: _ClassVar[int]
    ALREADY_STARTED_GAMES_FIELD_NUMBER: _ClassVar[int]
    FINISHED_GAMES_FIELD_NUMBER: _ClassVar[int]
    round: Round
    started_games: int
    already_started_games: int
    finished_games: int
    def __init__(self, round: _Optional[_Union[Round, _Mapping]] = ..., started_games: _Optional[int] = ..., already_started_games: _Optional[int] = ..., finished_games: _Optional[int] = ...) -> None: ...

class GetRoundRequest(_message.Message):
    __slots__ = ("event_id", "round", "page_size", "page_token")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    round: int
    page_size: int
    page_token: str
    def __init__(self, event_id: _Optional[str] = ..., round: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class BoardStatus(_message.Message):
    __slots__ = ("board", "game_id", "white", "black", "status", "ply", "side_to_move", "clock", "white_present", "black_present", "result", "white_left_time", "black_left_time")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELD_NUMBER: _ClassVar[int]
    BLACK_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    WHITE_PRESENT_FIELD_NUMBER: _ClassVar[int]
    BLACK_PRESENT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    WHITE_LEFT_TIME_FIELD_NUMBER: _ClassVar[int]
    BLACK_LEFT_TIME_FIELD_NUMBER: _ClassVar[int]
    board: int
    game_id: str
    white: Player
    black: Player
    status: GameStatus
    ply: int
    side_to_move: Color
    clock: ClockState
    white_present: bool
    black_present: bool
    result: GameResult
    white_left_time: _timestamp_pb2.Timestamp
    black_left_time: _timestamp_pb2.Timestamp
    def __init__(self, board: _Optional[int] = ..., game_id: _Optional[str] = ..., white: _Optional[_Union[Player, _Mapping]] = ..., black: _Optional[_Union[Player, _Mapping]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., ply: _Optional[int] = ..., side_to_move: _Optional[_Union[Color, str]] = ..., clock: _Optional[_Union[ClockState, _Mapping]] = ..., white_present: _Optional[bool] = ..., black_present: _Optional[bool] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., white_left_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., black_left_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetRoundResponse(_message.Message):
    __slots__ = ("round", "boards", "next_page_token", "server_time")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    round: Round
    boards: _containers.RepeatedCompositeFieldContainer[BoardStatus]
    next_page_token: str
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, round: _Optional[_Union[Round, _Mapping]] = ..., boards: _Optional[_Iterable[_Union[BoardStatus, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ImportPairingsRequest(_message.Message):
    __slots__ = ("request_id", "event_id", "round", "pairings", "trf", "players", "settings", "byes", "forbidden_pairs", "accelerations")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PAIRINGS_FIELD_NUMBER: _ClassVar[int]
    TRF_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_PAIRS_FIELD_NUMBER: _ClassVar[int]
    ACCELERATIONS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    event_id: str
    round: int
    pairings: str
    trf: str
    players: _containers.RepeatedCompositeFieldContainer[Player]
    settings: RoundSettings
    byes: _containers.RepeatedCompositeFieldContainer[RoundBye]
    forbidden_pairs: _containers.RepeatedCompositeFieldContainer[ForbiddenPair]
    accelerations: _containers.RepeatedCompositeFieldContainer[Acceleration]
    def __init__(self, request_id: _Optional[str] = ..., event_id: _Optional[str] = ..., round: _Optional[int] = ..., pairings: _Optional[str] = ..., trf: _Optional[str] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., settings: _Optional[_Union[RoundSettings, _Mapping]] = ..., byes: _Optional[_Iterable[_Union[RoundBye, _Mapping]]] = ..., forbidden_pairs: _Optional[_Iterable[_Union[ForbiddenPair, _Mapping]]] = ..., accelerations: _Optional[_Iterable[_Union[Acceleration, _Mapping]]] = ...) -> None: ...

class ImportPairingsResponse(_message.Message):
    __slots__ = ("round", "games")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    round: Round
    games: _containers.RepeatedCompositeFieldContainer[RoundGame]
    def __init__(self, round: _Optional[_Union[Round, _Mapping]] = ..., games: _Optional[_Iterable[_Union[RoundGame, _Mapping]]] = ...) -> None: ...

class Credential(_message.Message):
    __slots__ = ("credential_id", "name", "role", "event_id", "create_time", "created_by", "expire_time", "revoke_time", "revoked_by", "revoke_reason", "active")
    CREDENTIAL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    REVOKE_TIME_FIELD_NUMBER: _ClassVar[int]
    REVOKED_BY_FIELD_NUMBER: _ClassVar[int]
    REVOKE_REASON_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    credential_id: str
    name: str
    role: Role
    event_id: str
    create_time: _timestamp_pb2.Timestamp
    created_by: str
    expire_time: _timestamp_pb2.Timestamp
    revoke_time: _timestamp_pb2.Timestamp
    revoked_by: str
    revoke_reason: str
    active: bool
    def __init__(self, credential_id: _Optional[str] = ..., name: _Optional[str] = ..., role: _Optional[_Union[Role, str]] = ..., event_id: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_by: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revoke_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revoked_by: _Optional[str] = ..., revoke_reason: _Optional[str] = ..., active: _Optional[bool] = ...) -> None: ...

class CreateCredentialRequest(_message.Message):
    __slots__ = ("request_id", "name", "role", "event_id", "expire_time")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    name: str
    role: Role
    event_id: str
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, request_id: _Optional[str] = ..., name: _Optional[str] = ..., role: _Optional[_Union[Role, str]] = ..., event_id: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateCredentialResponse(_message.Message):
    __slots__ = ("credential", "token")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    credential: Credential
    token: str
    def __init__(self, credential: _Optional[_Union[Credential, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class RevokeCredentialRequest(_message.Message):
    __slots__ = ("credential_id", "reason")
    CREDENTIAL_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    credential_id: str
    reason: str
    def __init__(self, credential_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RevokeCredentialResponse(_message.Message):
    __slots__ = ("credential",)
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    credential: Credential
    def __init__(self, credential: _Optional[_Union[Credential, _Mapping]] = ...) -> None: ...

class ListCredentialsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListCredentialsResponse(_message.Message):
    __slots__ = ("credentials", "next_page_token")
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    credentials: _containers.RepeatedCompositeFieldContainer[Credential]
    next_page_token: str
    def __init__(self, credentials: _Optional[_Iterable[_Union[Credential, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListAuditEntriesRequest(_message.Message):
    __slots__ = ("event_id", "page_size", "page_token", "game_id", "principal", "kinds")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    page_size: int
    page_token: str
    game_id: str
    principal: str
    kinds: _containers.RepeatedScalarFieldContainer[AuditKind]
    def __init__(self, event_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., game_id: _Optional[str] = ..., principal: _Optional[str] = ..., kinds: _Optional[_Iterable[_Union[AuditKind, str]]] = ...) -> None: ...

class AuditEntry(_message.Message):
    __slots__ = ("game_id", "version", "time", "kind", "principal", "request_id", "reason", "event", "credential")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    version: int
    time: _timestamp_pb2.Timestamp
    kind: AuditKind
    principal: str
    request_id: str
    reason: str
    event: GameEvent
    credential: Credential
    def __init__(self, game_id: _Optional[str] = ..., version: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[_Union[AuditKind, str]] = ..., principal: _Optional[str] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., event: _Optional[_Union[GameEvent, _Mapping]] = ..., credential: _Optional[_Union[Credential, _Mapping]] = ...) -> None: ...

class ListAuditEntriesResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
