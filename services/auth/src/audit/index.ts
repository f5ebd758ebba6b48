export {
  type AuditEntry,
  type AuditEvent,
  type AuditEventKind,
  type AuditLog,
  auditEventKinds,
  createAuditLog,
} from './audit-log.ts';
