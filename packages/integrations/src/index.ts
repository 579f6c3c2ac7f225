/**
 * @acdp/integrations — record what agent frameworks do as signed ACDP contexts linked by lineage in one
 * control-plane run. The framework adapters are subpath exports (`/ai-sdk`, `/openai-agents`, `/langgraph`),
 * each needing only its own framework installed; the root holds the recorder they share.
 */
export * from './core/index.js'
