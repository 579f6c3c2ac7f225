// Public surface of @acdp/integrations/ai-sdk: re-exports only.
export {
  ACDP_PROVIDER_KEY,
  acdpInputs,
  acdpMiddleware,
  type AcdpMiddlewareOptions,
  createAiSdkRecorder,
  recordOf,
} from './middleware.js'
