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
