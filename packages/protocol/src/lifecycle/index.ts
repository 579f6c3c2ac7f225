// Public surface of lifecycle/: re-exports only.
export {
  computeLifecycleEventHash,
  signLifecycleEvent,
  type UnsignedLifecycleEvent,
  type ValidateLifecycleEventInput,
  validateLifecycleEvent,
  verifyLifecycleEventSignature,
} from './lifecycle-event.js'
export {
  type ContextStatusFacts,
  deriveContextStatus,
  isLifecycleTransitionAllowed,
  isRegisteredLifecycleEventType,
  isRetracted,
  LIFECYCLE_EVENT_TYPES,
  type LifecycleEventType,
} from './retraction-state.js'
