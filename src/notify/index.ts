/** E-mail delivery of reports and alert delivery (webhook, e-mail). */
export { createMailer, type Mailer, type MailMessage, type MailAttachment, type SendResult, type MailerOptions } from './mailer.ts';
export { DeliveryError, describeError } from './errors.ts';
export {
  sendReportEmail,
  retryPendingEmails,
  reportMessageId,
  type ReportEmailResult,
  type SendReportEmailOptions,
} from './report-email.ts';
export { buildReportEmail, GZIP_ABOVE_BYTES } from './report-content.ts';
export { raiseAlert, DEFAULT_REPEAT_AFTER_MS, type AlertInput, type RaiseOptions, type RaiseResult } from './raise-alert.ts';
export { deliverPendingAlerts, alertChannelsFromConfig, type AlertChannels, type DeliverAlertsResult } from './deliver-alerts.ts';
export {
  alertsForReconcileRun,
  alertForDrift,
  alertForRateFlags,
  alertForFailedRun,
  SAMPLE_ORDERS,
  type ReconcileRunSummary,
  type CheckedOrder,
  type DriftFinding,
  type FailedRunStatus,
} from './alert-builders.ts';
