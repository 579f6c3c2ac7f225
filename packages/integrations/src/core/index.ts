// Public surface of the recorder core: re-exports only.
export { createRecorder, type PublishedStep, type Recorder, type RecorderStats } from './recorder.js'
export {
  type ControlPlaneRunTarget,
  type FailurePolicy,
  type Framework,
  RECORDER_DEFAULTS,
  type RecorderConfig,
  RecordingError,
  type RecordHandle,
  type RecordRef,
  type RunConfig,
  type StepInput,
  type StepKind,
} from './recorder-config.js'
export { type RunOutcome } from './run-notices.js'
