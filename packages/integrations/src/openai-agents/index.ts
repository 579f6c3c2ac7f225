// Public surface of @acdp/integrations/openai-agents: re-exports only.
export { AcdpTracingProcessor, createAgentsRecorder, runRecorded, tracedModel } from './tracing-processor.js'
