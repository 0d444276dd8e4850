// The Queue row a Typeform delivery becomes: one builder for intake, the spill drain and the Journal's restore.
import { findRecipient, renderSubmission } from '../typeform/answers';
import { fitCell, payloadPointer, splitText, CELL_LIMIT_CHARS } from './cell-chunks';
import type { IntakeForm } from '../config/forms-mirror';
import { isTestDelivery, type TypeformDelivery } from '../typeform/typeform-payload';
import { emptyRow, type QueueRow } from './queue-row';

export function buildQueueRow(delivery: TypeformDelivery, receivedAt: number, config: IntakeForm): { row: QueueRow; payloadChunks: string[] } {
  const row = emptyRow();
  row.status = isTestDelivery(delivery) ? 'TEST' : 'PENDING';
  row.eventId = delivery.eventId;
  row.receivedAt = receivedAt;
  row.formId = delivery.formId;
  row.responseToken = delivery.responseToken;
  row.recipient = findRecipient(delivery, config.recipientField);
  row.submission = fitCell(renderSubmission(delivery), 'cut to fit a cell; every answer is in the payload');
  row.updatedAt = receivedAt;
  const json = delivery.compactJson;
  const payloadChunks = json.length > CELL_LIMIT_CHARS ? splitText(json) : [];
  row.payload = payloadChunks.length > 0 ? payloadPointer(payloadChunks.length) : json;
  return { row, payloadChunks };
}
