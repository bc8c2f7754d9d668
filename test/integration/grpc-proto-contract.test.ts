// The wire contract of Vexil's gRPC API against Flipt v1.61's published protos: every message's
// fields (name, number, type, repeated/map/optional/oneof), every enum's values and every service's
// methods with their request and response types, as written down below from Flipt's
// rpc/flipt/{flipt,evaluation/evaluation,auth/auth,ofrep/ofrep,meta/meta}.proto. They are compared with the
// descriptors @grpc/proto-loader builds from our proto/ (the ones server reflection sends), so a
// field with a wrong number, type or name fails here.
//
// Notation, per message: `type name = number` separated by `;`, with `repeated`, `optional` (proto3
// optional), `map<K, V>` and `oneof(name)` as prefixes; types of the message's own package are
// written without it.
//
// Vexil's extensions in Flipt's messages (ADR 0036) are fields numbered 1000 and up and messages
// named Vexil* in the flipt package: they are no difference from Flipt, but they are listed
// (EXTENSIONS), so none appears unnoticed and none takes a number Flipt could use.

import { FileDescriptorProto, type IFileDescriptorProto } from 'protobufjs/ext/descriptor/index.js';
import { describe, expect, it } from 'vitest';
import { fliptPackageDefinition } from '../../src/api/grpc/protos.js';

const MESSAGES: Record<string, string> = {
  // flipt (flipt.proto)
  'flipt.EvaluationRequest':
    'string request_id = 1; string flag_key = 2; string entity_id = 3; map<string, string> context = 4; string namespace_key = 5',
  'flipt.BatchEvaluationRequest':
    'string request_id = 1; repeated EvaluationRequest requests = 2; bool exclude_not_found = 3; string namespace_key = 4',
  'flipt.BatchEvaluationResponse':
    'string request_id = 1; repeated EvaluationResponse responses = 2; double request_duration_millis = 3',
  'flipt.EvaluationResponse':
    'string request_id = 1; string entity_id = 2; map<string, string> request_context = 3; bool match = 4; ' +
    'string flag_key = 5; string segment_key = 6; google.protobuf.Timestamp timestamp = 7; string value = 8; ' +
    'double request_duration_millis = 9; string attachment = 10; EvaluationReason reason = 11; ' +
    'string namespace_key = 12; repeated string segment_keys = 13',
  'flipt.Namespace':
    'string key = 1; string name = 2; string description = 3; bool protected = 4; ' +
    'google.protobuf.Timestamp created_at = 5; google.protobuf.Timestamp updated_at = 6',
  'flipt.NamespaceList': 'repeated Namespace namespaces = 1; string next_page_token = 2; int32 total_count = 3',
  'flipt.GetNamespaceRequest': 'string key = 1; string reference = 2',
  'flipt.ListNamespaceRequest': 'int32 limit = 1; int32 offset = 2; string page_token = 3; string reference = 4',
  'flipt.CreateNamespaceRequest': 'string key = 1; string name = 2; string description = 3',
  'flipt.UpdateNamespaceRequest': 'string key = 1; string name = 2; string description = 3',
  'flipt.DeleteNamespaceRequest': 'string key = 1; bool force = 2',
  'flipt.Flag':
    'string key = 1; string name = 2; string description = 3; bool enabled = 4; ' +
    'google.protobuf.Timestamp created_at = 5; google.protobuf.Timestamp updated_at = 6; repeated Variant variants = 7; ' +
    'string namespace_key = 8; FlagType type = 9; optional Variant default_variant = 10; ' +
    'optional google.protobuf.Struct metadata = 11',
  'flipt.FlagList': 'repeated Flag flags = 1; string next_page_token = 2; int32 total_count = 3',
  'flipt.GetFlagRequest': 'string key = 1; string namespace_key = 2; string reference = 3',
  'flipt.ListFlagRequest':
    'int32 limit = 1; int32 offset = 2; string page_token = 3; string namespace_key = 4; string reference = 5',
  'flipt.CreateFlagRequest':
    'string key = 1; string name = 2; string description = 3; bool enabled = 4; string namespace_key = 5; ' +
    'FlagType type = 6; optional google.protobuf.Struct metadata = 7',
  'flipt.UpdateFlagRequest':
    'string key = 1; string name = 2; string description = 3; bool enabled = 4; string namespace_key = 5; ' +
    'string default_variant_id = 6; optional google.protobuf.Struct metadata = 7',
  'flipt.DeleteFlagRequest': 'string key = 1; string namespace_key = 2',
  'flipt.Variant':
    'string id = 1; string flag_key = 2; string key = 3; string name = 4; string description = 5; ' +
    'google.protobuf.Timestamp created_at = 6; google.protobuf.Timestamp updated_at = 7; string attachment = 8; ' +
    'string namespace_key = 9',
  'flipt.CreateVariantRequest':
    'string flag_key = 1; string key = 2; string name = 3; string description = 4; string attachment = 5; ' +
    'string namespace_key = 6',
  'flipt.UpdateVariantRequest':
    'string id = 1; string flag_key = 2; string key = 3; string name = 4; string description = 5; ' +
    'string attachment = 6; string namespace_key = 7',
  'flipt.DeleteVariantRequest': 'string id = 1; string flag_key = 2; string namespace_key = 3',
  'flipt.Segment':
    'string key = 1; string name = 2; string description = 3; google.protobuf.Timestamp created_at = 4; ' +
    'google.protobuf.Timestamp updated_at = 5; repeated Constraint constraints = 6; MatchType match_type = 7; ' +
    'string namespace_key = 8',
  'flipt.SegmentList': 'repeated Segment segments = 1; string next_page_token = 2; int32 total_count = 3',
  'flipt.GetSegmentRequest': 'string key = 1; string namespace_key = 2; string reference = 3',
  'flipt.ListSegmentRequest':
    'int32 limit = 1; int32 offset = 2; string page_token = 3; string namespace_key = 4; string reference = 5',
  'flipt.CreateSegmentRequest':
    'string key = 1; string name = 2; string description = 3; MatchType match_type = 4; string namespace_key = 5',
  'flipt.UpdateSegmentRequest':
    'string key = 1; string name = 2; string description = 3; MatchType match_type = 4; string namespace_key = 5',
  'flipt.DeleteSegmentRequest': 'string key = 1; string namespace_key = 2',
  'flipt.Constraint':
    'string id = 1; string segment_key = 2; ComparisonType type = 3; string property = 4; string operator = 5; ' +
    'string value = 6; google.protobuf.Timestamp created_at = 7; google.protobuf.Timestamp updated_at = 8; ' +
    'string namespace_key = 9; string description = 10',
  'flipt.CreateConstraintRequest':
    'string segment_key = 1; ComparisonType type = 2; string property = 3; string operator = 4; string value = 5; ' +
    'string namespace_key = 6; string description = 7',
  'flipt.UpdateConstraintRequest':
    'string id = 1; string segment_key = 2; ComparisonType type = 3; string property = 4; string operator = 5; ' +
    'string value = 6; string namespace_key = 7; string description = 8',
  'flipt.DeleteConstraintRequest': 'string id = 1; string segment_key = 2; string namespace_key = 3',
  'flipt.Rollout':
    'string id = 1; string namespace_key = 2; string flag_key = 3; RolloutType type = 4; int32 rank = 5; ' +
    'string description = 6; google.protobuf.Timestamp created_at = 7; google.protobuf.Timestamp updated_at = 8; ' +
    'oneof(rule) RolloutSegment segment = 20; oneof(rule) RolloutThreshold threshold = 21',
  'flipt.RolloutSegment':
    'string segment_key = 1; bool value = 2; repeated string segment_keys = 3; SegmentOperator segment_operator = 4',
  'flipt.RolloutThreshold': 'float percentage = 1; bool value = 2',
  'flipt.RolloutList': 'repeated Rollout rules = 1; string next_page_token = 2; int32 total_count = 3',
  'flipt.ListRolloutRequest':
    'string namespace_key = 1; string flag_key = 2; int32 limit = 3; string page_token = 4; string reference = 5',
  'flipt.GetRolloutRequest': 'string id = 1; string namespace_key = 2; string flag_key = 3; string reference = 4',
  'flipt.CreateRolloutRequest':
    'string namespace_key = 1; string flag_key = 2; int32 rank = 3; string description = 4; ' +
    'oneof(rule) RolloutSegment segment = 20; oneof(rule) RolloutThreshold threshold = 21',
  'flipt.UpdateRolloutRequest':
    'string id = 1; string namespace_key = 2; string flag_key = 3; string description = 4; ' +
    'oneof(rule) RolloutSegment segment = 20; oneof(rule) RolloutThreshold threshold = 21',
  'flipt.DeleteRolloutRequest': 'string id = 1; string namespace_key = 2; string flag_key = 3',
  'flipt.OrderRolloutsRequest': 'string flag_key = 1; string namespace_key = 2; repeated string rollout_ids = 3',
  'flipt.Rule':
    'string id = 1; string flag_key = 2; string segment_key = 3; repeated Distribution distributions = 4; ' +
    'int32 rank = 5; google.protobuf.Timestamp created_at = 6; google.protobuf.Timestamp updated_at = 7; ' +
    'string namespace_key = 8; repeated string segment_keys = 9; SegmentOperator segment_operator = 10',
  'flipt.RuleList': 'repeated Rule rules = 1; string next_page_token = 2; int32 total_count = 3',
  'flipt.ListRuleRequest':
    'int32 limit = 1; int32 offset = 2; string flag_key = 3; string page_token = 4; string namespace_key = 5; ' +
    'string reference = 6',
  'flipt.GetRuleRequest': 'string id = 1; string flag_key = 2; string namespace_key = 3; string reference = 4',
  'flipt.CreateRuleRequest':
    'string flag_key = 1; string segment_key = 2; int32 rank = 3; string namespace_key = 4; ' +
    'repeated string segment_keys = 5; SegmentOperator segment_operator = 6',
  'flipt.UpdateRuleRequest':
    'string id = 1; string flag_key = 2; string segment_key = 3; string namespace_key = 4; ' +
    'repeated string segment_keys = 5; SegmentOperator segment_operator = 6',
  'flipt.DeleteRuleRequest': 'string id = 1; string flag_key = 2; string namespace_key = 3',
  'flipt.OrderRulesRequest': 'string flag_key = 1; repeated string rule_ids = 2; string namespace_key = 3',
  'flipt.Distribution':
    'string id = 1; string rule_id = 2; string variant_id = 3; float rollout = 4; ' +
    'google.protobuf.Timestamp created_at = 5; google.protobuf.Timestamp updated_at = 6',
  'flipt.CreateDistributionRequest':
    'string flag_key = 1; string rule_id = 2; string variant_id = 3; float rollout = 4; string namespace_key = 5',
  'flipt.UpdateDistributionRequest':
    'string id = 1; string flag_key = 2; string rule_id = 3; string variant_id = 4; float rollout = 5; ' +
    'string namespace_key = 6',
  'flipt.DeleteDistributionRequest':
    'string id = 1; string flag_key = 2; string rule_id = 3; string variant_id = 4; string namespace_key = 5',

  // flipt.evaluation (evaluation/evaluation.proto)
  'flipt.evaluation.EvaluationRequest':
    'string request_id = 1; string namespace_key = 2; string flag_key = 3; string entity_id = 4; ' +
    'map<string, string> context = 5; string reference = 6',
  'flipt.evaluation.BatchEvaluationRequest':
    'string request_id = 1; repeated EvaluationRequest requests = 3; string reference = 4',
  'flipt.evaluation.BatchEvaluationResponse':
    'string request_id = 1; repeated EvaluationResponse responses = 2; double request_duration_millis = 3',
  'flipt.evaluation.EvaluationResponse':
    'EvaluationResponseType type = 1; oneof(response) BooleanEvaluationResponse boolean_response = 2; ' +
    'oneof(response) VariantEvaluationResponse variant_response = 3; ' +
    'oneof(response) ErrorEvaluationResponse error_response = 4',
  'flipt.evaluation.BooleanEvaluationResponse':
    'bool enabled = 1; EvaluationReason reason = 2; string request_id = 3; double request_duration_millis = 4; ' +
    'google.protobuf.Timestamp timestamp = 5; string flag_key = 6',
  'flipt.evaluation.VariantEvaluationResponse':
    'bool match = 1; repeated string segment_keys = 2; EvaluationReason reason = 3; string variant_key = 4; ' +
    'string variant_attachment = 5; string request_id = 6; double request_duration_millis = 7; ' +
    'google.protobuf.Timestamp timestamp = 8; string flag_key = 9',
  'flipt.evaluation.ErrorEvaluationResponse':
    'string flag_key = 1; string namespace_key = 2; ErrorEvaluationReason reason = 3',
  'flipt.evaluation.EvaluationDistribution':
    'string id = 1; string rule_id = 2; string variant_id = 3; string variant_key = 4; ' +
    'string variant_attachment = 5; float rollout = 6',
  'flipt.evaluation.EvaluationRollout':
    'EvaluationRolloutType type = 1; int32 rank = 2; oneof(rule) EvaluationRolloutSegment segment = 3; ' +
    'oneof(rule) EvaluationRolloutThreshold threshold = 4',
  'flipt.evaluation.EvaluationRolloutThreshold': 'float percentage = 1; bool value = 2',
  'flipt.evaluation.EvaluationRolloutSegment':
    'bool value = 1; EvaluationSegmentOperator segment_operator = 2; repeated EvaluationSegment segments = 3',
  'flipt.evaluation.EvaluationSegment':
    'string key = 1; string name = 2; string description = 3; EvaluationSegmentMatchType match_type = 4; ' +
    'google.protobuf.Timestamp created_at = 5; google.protobuf.Timestamp updated_at = 6; ' +
    'repeated EvaluationConstraint constraints = 7',
  'flipt.evaluation.EvaluationVariant': 'string id = 1; string key = 2; string attachment = 3',
  'flipt.evaluation.EvaluationFlag':
    'string key = 1; string name = 2; string description = 3; bool enabled = 4; EvaluationFlagType type = 5; ' +
    'google.protobuf.Timestamp created_at = 6; google.protobuf.Timestamp updated_at = 7; ' +
    'repeated EvaluationRule rules = 8; repeated EvaluationRollout rollouts = 9; ' +
    'optional EvaluationVariant default_variant = 10',
  'flipt.evaluation.EvaluationConstraint':
    'string id = 1; EvaluationConstraintComparisonType type = 2; string property = 3; string operator = 4; ' +
    'string value = 5',
  'flipt.evaluation.EvaluationRule':
    'string id = 1; repeated EvaluationSegment segments = 2; int32 rank = 3; ' +
    'EvaluationSegmentOperator segment_operator = 4; repeated EvaluationDistribution distributions = 5',
  'flipt.evaluation.EvaluationNamespace': 'string key = 1',
  'flipt.evaluation.EvaluationNamespaceSnapshot':
    'EvaluationNamespace namespace = 1; repeated EvaluationFlag flags = 2',
  'flipt.evaluation.EvaluationNamespaceSnapshotRequest': 'string key = 1; string reference = 2',

  // flipt.auth (auth/auth.proto; every method's service)
  'flipt.auth.MethodInfo':
    'Method method = 1; bool enabled = 2; bool session_compatible = 3; google.protobuf.Struct metadata = 4',
  'flipt.auth.ListAuthenticationMethodsResponse': 'repeated MethodInfo methods = 1',
  'flipt.auth.Authentication':
    'string id = 1; Method method = 2; google.protobuf.Timestamp expires_at = 3; ' +
    'google.protobuf.Timestamp created_at = 4; google.protobuf.Timestamp updated_at = 5; ' +
    'map<string, string> metadata = 6',
  'flipt.auth.GetAuthenticationRequest': 'string id = 1',
  'flipt.auth.ListAuthenticationsRequest': 'Method method = 1; int32 limit = 2; string page_token = 3',
  'flipt.auth.ListAuthenticationsResponse': 'repeated Authentication authentications = 1; string next_page_token = 2',
  'flipt.auth.DeleteAuthenticationRequest': 'string id = 1',
  'flipt.auth.ExpireAuthenticationSelfRequest': 'optional google.protobuf.Timestamp expires_at = 1',
  'flipt.auth.CreateTokenRequest':
    'string name = 1; string description = 2; google.protobuf.Timestamp expires_at = 3; string namespace_key = 4; ' +
    'map<string, string> metadata = 7',
  'flipt.auth.CreateTokenResponse': 'string client_token = 1; Authentication authentication = 2',
  'flipt.auth.AuthorizeURLRequest': 'string provider = 1; string state = 2',
  'flipt.auth.AuthorizeURLResponse': 'string authorize_url = 1',
  'flipt.auth.CallbackRequest': 'string provider = 1; string code = 2; string state = 3',
  'flipt.auth.CallbackResponse': 'string client_token = 1; Authentication authentication = 2',
  'flipt.auth.VerifyServiceAccountRequest': 'string service_account_token = 1',
  'flipt.auth.VerifyServiceAccountResponse': 'string client_token = 1; Authentication authentication = 2',

  // flipt.ofrep (ofrep/ofrep.proto)
  'flipt.ofrep.GetProviderConfigurationRequest': '',
  'flipt.ofrep.GetProviderConfigurationResponse': 'string name = 1; Capabilities capabilities = 2',
  'flipt.ofrep.Capabilities': 'CacheInvalidation cache_invalidation = 1; FlagEvaluation flag_evaluation = 2',
  'flipt.ofrep.CacheInvalidation': 'Polling polling = 1',
  'flipt.ofrep.Polling': 'bool enabled = 1; uint32 min_polling_interval_ms = 2',
  'flipt.ofrep.FlagEvaluation': 'repeated string supported_types = 1',
  'flipt.ofrep.EvaluateFlagRequest': 'string key = 1; map<string, string> context = 2',
  'flipt.ofrep.EvaluatedFlag':
    'string key = 1; EvaluateReason reason = 2; string variant = 3; google.protobuf.Struct metadata = 4; ' +
    'google.protobuf.Value value = 5',
  'flipt.ofrep.EvaluateBulkRequest': 'map<string, string> context = 1',
  'flipt.ofrep.BulkEvaluationResponse': 'repeated EvaluatedFlag flags = 1',
};

const ENUMS: Record<string, string> = {
  'flipt.EvaluationReason':
    'UNKNOWN_EVALUATION_REASON = 0; FLAG_DISABLED_EVALUATION_REASON = 1; FLAG_NOT_FOUND_EVALUATION_REASON = 2; ' +
    'MATCH_EVALUATION_REASON = 3; ERROR_EVALUATION_REASON = 4; DEFAULT_EVALUATION_REASON = 5',
  'flipt.FlagType': 'VARIANT_FLAG_TYPE = 0; BOOLEAN_FLAG_TYPE = 1',
  'flipt.MatchType': 'ALL_MATCH_TYPE = 0; ANY_MATCH_TYPE = 1',
  'flipt.ComparisonType':
    'UNKNOWN_COMPARISON_TYPE = 0; STRING_COMPARISON_TYPE = 1; NUMBER_COMPARISON_TYPE = 2; ' +
    'BOOLEAN_COMPARISON_TYPE = 3; DATETIME_COMPARISON_TYPE = 4; ENTITY_ID_COMPARISON_TYPE = 5',
  'flipt.RolloutType': 'UNKNOWN_ROLLOUT_TYPE = 0; SEGMENT_ROLLOUT_TYPE = 1; THRESHOLD_ROLLOUT_TYPE = 2',
  'flipt.SegmentOperator': 'OR_SEGMENT_OPERATOR = 0; AND_SEGMENT_OPERATOR = 1',
  'flipt.evaluation.EvaluationReason':
    'UNKNOWN_EVALUATION_REASON = 0; FLAG_DISABLED_EVALUATION_REASON = 1; MATCH_EVALUATION_REASON = 2; ' +
    'DEFAULT_EVALUATION_REASON = 3',
  'flipt.evaluation.ErrorEvaluationReason':
    'UNKNOWN_ERROR_EVALUATION_REASON = 0; NOT_FOUND_ERROR_EVALUATION_REASON = 1',
  'flipt.evaluation.EvaluationResponseType':
    'VARIANT_EVALUATION_RESPONSE_TYPE = 0; BOOLEAN_EVALUATION_RESPONSE_TYPE = 1; ERROR_EVALUATION_RESPONSE_TYPE = 2',
  'flipt.evaluation.EvaluationRolloutType':
    'UNKNOWN_ROLLOUT_TYPE = 0; SEGMENT_ROLLOUT_TYPE = 1; THRESHOLD_ROLLOUT_TYPE = 2',
  'flipt.evaluation.EvaluationSegmentOperator': 'OR_SEGMENT_OPERATOR = 0; AND_SEGMENT_OPERATOR = 1',
  'flipt.evaluation.EvaluationSegmentMatchType': 'ALL_SEGMENT_MATCH_TYPE = 0; ANY_SEGMENT_MATCH_TYPE = 1',
  'flipt.evaluation.EvaluationFlagType': 'VARIANT_FLAG_TYPE = 0; BOOLEAN_FLAG_TYPE = 1',
  'flipt.evaluation.EvaluationConstraintComparisonType':
    'UNKNOWN_CONSTRAINT_COMPARISON_TYPE = 0; STRING_CONSTRAINT_COMPARISON_TYPE = 1; ' +
    'NUMBER_CONSTRAINT_COMPARISON_TYPE = 2; BOOLEAN_CONSTRAINT_COMPARISON_TYPE = 3; ' +
    'DATETIME_CONSTRAINT_COMPARISON_TYPE = 4; ENTITY_ID_CONSTRAINT_COMPARISON_TYPE = 5',
  'flipt.auth.Method':
    'METHOD_NONE = 0; METHOD_TOKEN = 1; METHOD_OIDC = 2; METHOD_KUBERNETES = 3; METHOD_GITHUB = 4; ' +
    'METHOD_JWT = 5; METHOD_CLOUD = 6',
  'flipt.ofrep.EvaluateReason': 'UNKNOWN = 0; DISABLED = 1; TARGETING_MATCH = 2; DEFAULT = 3',
};

const EMPTY = 'google.protobuf.Empty';
const SERVICES: Record<string, string> = {
  'flipt.Flipt': [
    'Evaluate(EvaluationRequest) returns (EvaluationResponse)',
    'BatchEvaluate(BatchEvaluationRequest) returns (BatchEvaluationResponse)',
    'GetNamespace(GetNamespaceRequest) returns (Namespace)',
    'ListNamespaces(ListNamespaceRequest) returns (NamespaceList)',
    'CreateNamespace(CreateNamespaceRequest) returns (Namespace)',
    'UpdateNamespace(UpdateNamespaceRequest) returns (Namespace)',
    `DeleteNamespace(DeleteNamespaceRequest) returns (${EMPTY})`,
    'GetFlag(GetFlagRequest) returns (Flag)',
    'ListFlags(ListFlagRequest) returns (FlagList)',
    'CreateFlag(CreateFlagRequest) returns (Flag)',
    'UpdateFlag(UpdateFlagRequest) returns (Flag)',
    `DeleteFlag(DeleteFlagRequest) returns (${EMPTY})`,
    'CreateVariant(CreateVariantRequest) returns (Variant)',
    'UpdateVariant(UpdateVariantRequest) returns (Variant)',
    `DeleteVariant(DeleteVariantRequest) returns (${EMPTY})`,
    'GetRule(GetRuleRequest) returns (Rule)',
    'ListRules(ListRuleRequest) returns (RuleList)',
    'CreateRule(CreateRuleRequest) returns (Rule)',
    'UpdateRule(UpdateRuleRequest) returns (Rule)',
    `OrderRules(OrderRulesRequest) returns (${EMPTY})`,
    `DeleteRule(DeleteRuleRequest) returns (${EMPTY})`,
    'GetRollout(GetRolloutRequest) returns (Rollout)',
    'ListRollouts(ListRolloutRequest) returns (RolloutList)',
    'CreateRollout(CreateRolloutRequest) returns (Rollout)',
    'UpdateRollout(UpdateRolloutRequest) returns (Rollout)',
    `DeleteRollout(DeleteRolloutRequest) returns (${EMPTY})`,
    `OrderRollouts(OrderRolloutsRequest) returns (${EMPTY})`,
    'CreateDistribution(CreateDistributionRequest) returns (Distribution)',
    'UpdateDistribution(UpdateDistributionRequest) returns (Distribution)',
    `DeleteDistribution(DeleteDistributionRequest) returns (${EMPTY})`,
    'GetSegment(GetSegmentRequest) returns (Segment)',
    'ListSegments(ListSegmentRequest) returns (SegmentList)',
    'CreateSegment(CreateSegmentRequest) returns (Segment)',
    'UpdateSegment(UpdateSegmentRequest) returns (Segment)',
    `DeleteSegment(DeleteSegmentRequest) returns (${EMPTY})`,
    'CreateConstraint(CreateConstraintRequest) returns (Constraint)',
    'UpdateConstraint(UpdateConstraintRequest) returns (Constraint)',
    `DeleteConstraint(DeleteConstraintRequest) returns (${EMPTY})`,
  ].join('; '),
  'flipt.evaluation.EvaluationService':
    'Boolean(EvaluationRequest) returns (BooleanEvaluationResponse); ' +
    'Variant(EvaluationRequest) returns (VariantEvaluationResponse); ' +
    'Batch(BatchEvaluationRequest) returns (BatchEvaluationResponse)',
  'flipt.evaluation.DataService':
    'EvaluationSnapshotNamespace(EvaluationNamespaceSnapshotRequest) returns (EvaluationNamespaceSnapshot)',
  'flipt.auth.PublicAuthenticationService': `ListAuthenticationMethods(${EMPTY}) returns (ListAuthenticationMethodsResponse)`,
  'flipt.auth.AuthenticationService':
    `GetAuthenticationSelf(${EMPTY}) returns (Authentication); ` +
    'GetAuthentication(GetAuthenticationRequest) returns (Authentication); ' +
    'ListAuthentications(ListAuthenticationsRequest) returns (ListAuthenticationsResponse); ' +
    `DeleteAuthentication(DeleteAuthenticationRequest) returns (${EMPTY}); ` +
    `ExpireAuthenticationSelf(ExpireAuthenticationSelfRequest) returns (${EMPTY})`,
  'flipt.auth.AuthenticationMethodTokenService': 'CreateToken(CreateTokenRequest) returns (CreateTokenResponse)',
  'flipt.meta.MetadataService': `GetConfiguration(${EMPTY}) returns (google.api.HttpBody); GetInfo(${EMPTY}) returns (google.api.HttpBody)`,
  'flipt.auth.AuthenticationMethodOIDCService':
    'AuthorizeURL(AuthorizeURLRequest) returns (AuthorizeURLResponse); Callback(CallbackRequest) returns (CallbackResponse)',
  'flipt.auth.AuthenticationMethodGithubService':
    'AuthorizeURL(AuthorizeURLRequest) returns (AuthorizeURLResponse); Callback(CallbackRequest) returns (CallbackResponse)',
  'flipt.auth.AuthenticationMethodKubernetesService':
    'VerifyServiceAccount(VerifyServiceAccountRequest) returns (VerifyServiceAccountResponse)',
  'flipt.ofrep.OFREPService':
    'GetProviderConfiguration(GetProviderConfigurationRequest) returns (GetProviderConfigurationResponse); ' +
    'EvaluateFlag(EvaluateFlagRequest) returns (EvaluatedFlag); ' +
    'EvaluateBulk(EvaluateBulkRequest) returns (BulkEvaluationResponse)',
};

/** Vexil's extensions: the fields numbered ≥ 1000 of Flipt's messages, and Vexil's own messages there. */
const EXTENSIONS: Record<string, string> = {
  'flipt.CreateRuleRequest': 'VexilRuleSplit vexil_split = 1000',
  'flipt.UpdateRuleRequest': 'VexilRuleSplit vexil_split = 1000',
  'flipt.CreateSegmentRequest': 'VexilSegmentConstraints vexil_constraints = 1000',
  'flipt.UpdateSegmentRequest': 'VexilSegmentConstraints vexil_constraints = 1000',
  'flipt.VexilRuleSplit': 'repeated VexilSplitEntry distributions = 1',
  'flipt.VexilSplitEntry': 'string variant_id = 1; float rollout = 2',
  'flipt.VexilSegmentConstraints': 'repeated VexilConstraintEntry constraints = 1',
  'flipt.VexilConstraintEntry':
    'string id = 1; ComparisonType type = 2; string property = 3; string operator = 4; string value = 5; ' +
    'string description = 6',
  'flipt.auth.Authentication': 'repeated VexilRoleBinding roles = 1000',
  'flipt.auth.CreateTokenRequest': 'repeated VexilRoleBinding roles = 1000',
  'flipt.auth.VexilRoleBinding': 'string role = 1; string namespace = 2',
};
const FIRST_EXTENSION_FIELD = 1000;

// ---- Reading the contract back from descriptors --------------------------------------------------

interface Contract {
  messages: Record<string, string[]>;
  /** Vexil's extensions, kept out of `messages`. */
  extensions: Record<string, string[]>;
  enums: Record<string, string[]>;
  services: Record<string, string[]>;
}

const SCALARS: Record<number, string> = {
  1: 'double',
  2: 'float',
  3: 'int64',
  4: 'uint64',
  5: 'int32',
  6: 'fixed64',
  7: 'fixed32',
  8: 'bool',
  9: 'string',
  12: 'bytes',
  13: 'uint32',
  15: 'sfixed32',
  16: 'sfixed64',
  17: 'sint32',
  18: 'sint64',
};
const TYPE_MESSAGE = 11;
const TYPE_ENUM = 14;
const LABEL_REPEATED = 3;

type Message = NonNullable<IFileDescriptorProto['messageType']>[number];

/** Table entries are `;`-separated; an empty entry has no items. */
const items = (entry: string): string[] => entry.split(';').flatMap((s) => (s.trim() ? [s.trim()] : []));

/** The descriptors of every file of the package definition (each file once), as plain objects. */
function fileDescriptors(): IFileDescriptorProto[] {
  const files = new Map<string, IFileDescriptorProto>();
  for (const entry of Object.values(fliptPackageDefinition())) {
    for (const bytes of (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos ?? []) {
      // toObject keeps only the fields present on the wire (oneof_index among them).
      const file = FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes)) as IFileDescriptorProto;
      if (file.name && !files.has(file.name)) files.set(file.name, file);
    }
  }
  return [...files.values()];
}

function contractOf(files: IFileDescriptorProto[]): Contract {
  // Every message by full name, to resolve type references (possibly relative) and find map entries.
  const messages = new Map<string, Message>();
  const enums = new Set<string>();
  const index = (scope: string, list: Message[] | null | undefined, enumList: { name?: string | null }[] = []) => {
    for (const e of enumList) enums.add(`${scope}.${e.name}`);
    for (const m of list ?? []) {
      messages.set(`${scope}.${m.name}`, m);
      index(`${scope}.${m.name}`, m.nestedType, m.enumType ?? []);
    }
  };
  for (const f of files) index(f.package ?? '', f.messageType, f.enumType ?? []);

  const resolve = (ref: string, scope: string): string => {
    if (ref.startsWith('.')) return ref.slice(1);
    for (let s = scope; s; s = s.includes('.') ? s.slice(0, s.lastIndexOf('.')) : '') {
      const name = `${s}.${ref}`;
      if (messages.has(name) || enums.has(name)) return name;
    }
    return ref;
  };
  const shortName = (fullName: string, pkg: string) =>
    fullName.startsWith(`${pkg}.`) ? fullName.slice(pkg.length + 1) : fullName;

  const contract: Contract = { messages: {}, extensions: {}, enums: {}, services: {} };
  for (const f of files) {
    const pkg = f.package ?? '';
    // Vexil's own extensions (proto/vexil/) are no part of Flipt's contract.
    if (pkg.startsWith('google.') || pkg.startsWith('vexil.')) continue;
    for (const m of f.messageType ?? []) {
      const fullName = `${pkg}.${m.name}`;
      const typeOf = (field: NonNullable<Message['field']>[number]): string => {
        if (field.type === TYPE_MESSAGE || field.type === TYPE_ENUM) {
          return shortName(resolve(field.typeName ?? '', fullName), pkg);
        }
        return SCALARS[field.type ?? 0] ?? `type ${field.type}`;
      };
      const own = m.name?.startsWith('Vexil') === true;
      const fields = (m.field ?? [])
        .slice()
        .sort((a, b) => (a.number ?? 0) - (b.number ?? 0))
        .map((field) => {
          const declared = `${field.name} = ${field.number}`;
          if (field.type === TYPE_MESSAGE && field.label === LABEL_REPEATED) {
            const entry = messages.get(resolve(field.typeName ?? '', fullName));
            if (entry?.options?.mapEntry) {
              const [k, v] = entry.field ?? [];
              if (k && v) return `map<${typeOf(k)}, ${typeOf(v)}> ${declared}`;
            }
          }
          const type = typeOf(field);
          if (field.label === LABEL_REPEATED) return `repeated ${type} ${declared}`;
          // oneof_index is written only for members of a oneof; proto3 `optional` is a synthetic
          // oneof of one field, named after it.
          if (Object.hasOwn(field, 'oneofIndex') && field.oneofIndex != null) {
            const oneof = m.oneofDecl?.[field.oneofIndex]?.name ?? '?';
            const members = (m.field ?? []).filter(
              (x) => Object.hasOwn(x, 'oneofIndex') && x.oneofIndex === field.oneofIndex,
            );
            if (members.length === 1 && oneof === `_${field.name}`) {
              return `optional ${type} ${declared}`;
            }
            return `oneof(${oneof}) ${type} ${declared}`;
          }
          return `${type} ${declared}`;
        });
      const isExtension = (item: string) =>
        own || Number(item.slice(item.lastIndexOf('=') + 1)) >= FIRST_EXTENSION_FIELD;
      const extensions = fields.filter(isExtension);
      if (!own) contract.messages[fullName] = fields.filter((item) => !isExtension(item));
      if (extensions.length > 0) contract.extensions[fullName] = extensions;
    }
    for (const e of f.enumType ?? []) {
      contract.enums[`${pkg}.${e.name}`] = (e.value ?? []).map((v) => `${v.name} = ${v.number}`);
    }
    for (const s of f.service ?? []) {
      contract.services[`${pkg}.${s.name}`] = (s.method ?? []).map((method) => {
        const stream = (on: boolean | null | undefined) => (on ? 'stream ' : '');
        const input = shortName(resolve(method.inputType ?? '', pkg), pkg);
        const output = shortName(resolve(method.outputType ?? '', pkg), pkg);
        return `${method.name}(${stream(method.clientStreaming)}${input}) returns (${stream(method.serverStreaming)}${output})`;
      });
    }
  }
  return contract;
}

const sorted = (list: string[]) => [...list].sort();
const expectedMessages = () => Object.fromEntries(Object.entries(MESSAGES).map(([k, v]) => [k, sorted(items(v))]));

function sortedContract(c: Contract): Contract {
  const sortAll = (r: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, sorted(v)]));
  return {
    messages: sortAll(c.messages),
    extensions: sortAll(c.extensions),
    enums: sortAll(c.enums),
    services: sortAll(c.services),
  };
}

describe("gRPC wire contract (proto/ against Flipt v1.61's protos)", () => {
  const actual = sortedContract(contractOf(fileDescriptors()));

  it('has every message with Flipt’s field names, numbers, types and labels, and no other', () => {
    expect(actual.messages).toEqual(expectedMessages());
  });

  it('has Vexil’s extensions (fields ≥ 1000, Vexil* messages) listed, and no other', () => {
    expect(actual.extensions).toEqual(
      Object.fromEntries(Object.entries(EXTENSIONS).map(([k, v]) => [k, sorted(items(v))])),
    );
  });

  it('has every enum with Flipt’s values and numbers, and no other', () => {
    expect(actual.enums).toEqual(Object.fromEntries(Object.entries(ENUMS).map(([k, v]) => [k, sorted(items(v))])));
  });

  it('has every service with Flipt’s methods and their request and response types, and no other', () => {
    expect(actual.services).toEqual(
      Object.fromEntries(Object.entries(SERVICES).map(([k, v]) => [k, sorted(items(v))])),
    );
    expect(Object.values(actual.services).flat()).toHaveLength(59);
  });

  it('declares google.api.HttpBody (the meta answers) with googleapis’ fields', () => {
    const file = fileDescriptors().find((f) => f.package === 'google.api');
    const body = file?.messageType?.find((m) => m.name === 'HttpBody');
    // protobufjs writes type names relative to the message's scope (`protobuf.Any` in google.api).
    const typeName = (name: string | null | undefined) =>
      (name ?? '').replace(/^(\.google\.)?protobuf\./, 'google.protobuf.');
    expect(body?.field?.map((f) => [f.name, f.number, f.type, f.label, typeName(f.typeName)])).toEqual([
      ['content_type', 1, 9, 1, ''],
      ['data', 2, 12, 1, ''],
      ['extensions', 3, 11, LABEL_REPEATED, 'google.protobuf.Any'],
    ]);
  });

  it('fails on a field with a wrong number, a wrong type, outside its oneof or an extension below 1000', () => {
    const mutate = (change: (flag: Message, rollout: Message, rule: Message) => void): Contract => {
      const files = fileDescriptors();
      const flipt = files.find((f) => f.package === 'flipt');
      const flag = flipt?.messageType?.find((m) => m.name === 'Flag');
      const rollout = flipt?.messageType?.find((m) => m.name === 'Rollout');
      const rule = flipt?.messageType?.find((m) => m.name === 'CreateRuleRequest');
      if (!flag || !rollout || !rule) throw new Error('flipt.Flag, flipt.Rollout or flipt.CreateRuleRequest missing');
      change(flag, rollout, rule);
      return sortedContract(contractOf(files));
    };
    const field = (m: Message, name: string) => {
      const found = m.field?.find((f) => f.name === name);
      if (!found) throw new Error(`no field ${name}`);
      return found;
    };
    const expected = expectedMessages();

    const renumbered = mutate((flag) => {
      field(flag, 'namespace_key').number = 18;
    });
    expect(renumbered.messages['flipt.Flag']).not.toEqual(expected['flipt.Flag']);

    const retyped = mutate((flag) => {
      field(flag, 'enabled').type = 9; // string instead of bool
    });
    expect(retyped.messages['flipt.Flag']).not.toEqual(expected['flipt.Flag']);

    const outOfOneof = mutate((_flag, rollout) => {
      delete field(rollout, 'threshold').oneofIndex;
    });
    expect(outOfOneof.messages['flipt.Rollout']).not.toEqual(expected['flipt.Rollout']);

    // An extension numbered where Flipt could put a field is a difference, not an extension.
    const extensionInFliptRange = mutate((_flag, _rollout, rule) => {
      field(rule, 'vexil_split').number = 7;
    });
    expect(extensionInFliptRange.messages['flipt.CreateRuleRequest']).not.toEqual(expected['flipt.CreateRuleRequest']);

    // Unchanged, the same path agrees: the failures above come from the changes.
    expect(mutate(() => {}).messages).toEqual(expected);
  });
});
