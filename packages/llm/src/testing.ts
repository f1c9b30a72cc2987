export type {
  FakeBatch,
  FakeBatchFault,
  FakeBatchInfo,
  FakeBatchLimits,
  FakeBatchPlan,
  FakeBatchPlanner,
  FakeBatchRoute,
  FakeFile,
} from './fake-batch-api';
export {
  approximateTokens,
  type FakeFault,
  type FakeLlmHandler,
  type FakeLlmReply,
  type FakeLlmRequest,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  type FakeProvider,
  fakeProviderEnv,
  startFakeLlmServer,
} from './fake-llm-server';
export type { FakeRateLimits, FakeRateStats } from './fake-rate-limits';
