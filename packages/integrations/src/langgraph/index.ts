// Public surface of @acdp/integrations/langgraph: re-exports only.
export {
  ACDP_CHANNEL,
  acdpLineage,
  createLangGraphRecorder,
  type LineageMark,
  mergeLineage,
  recordNode,
  type RecordNodeOptions,
} from './record-node.js'
