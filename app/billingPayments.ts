// How invoices are paid: a port (issue 23 "Payment behind a port: manual collection built in ...; a
// card-payment processor adapter optional"). The built-in adapter is manual collection: the customer
// pays outside this service (bank transfer and the like) by the brand's manualCollectionPaymentInstructions,
// e-mailed with each invoice when the brand's sendManualCollectionEmail is true (through the SMTP
// channel, app/notifications.ts), and the operator marks the invoice paid. No card processor is built:
// without one every invoice is a manual-collection invoice, whatever the brand's manualCollection says.
import { emailChannelId, isEmailAddress } from '../domain/notification/targets.js';
import type { InvoiceIssuedData } from '../domain/invoice/events.js';
import { WHITE_LABEL } from '../domain/whiteLabel/feature.js';
import { outboxNotifications } from './notifications.js';
import type { Services } from './services.js';

/** What the brand (FeatureWhiteLabelDTO) says about collecting its customers' invoices. */
export interface CollectionTerms {
  readonly manualCollection: boolean;
  readonly paymentInstructions: string | null;
  readonly sendEmail: boolean;
}

export interface PaymentPort {
  readonly name: string;
  /** The terms an invoice is issued with (kept in its InvoiceIssued event). */
  terms(brandFeatureId: string | null): Promise<CollectionTerms>;
  /** After an invoice was issued: ask for the payment (manual collection: the e-mail, when the brand wants it). Answers whether a message was sent. */
  requestPayment(invoice: InvoiceIssuedData): Promise<boolean>;
}

const brandSetting = async (services: Pick<Services, 'db'>, brandFeatureId: string): Promise<Record<string, unknown> | null> => {
  const row = await services.db.selectFrom('features').select('setting').where('id', '=', brandFeatureId).where('type', '=', WHITE_LABEL).executeTakeFirst();
  return (row?.setting as Record<string, unknown> | undefined) ?? null;
};

export const manualCollection = (services: Pick<Services, 'db' | 'config' | 'outbox' | 'log'>): PaymentPort => ({
  name: 'MANUAL_COLLECTION',
  async terms(brandFeatureId) {
    const brand = brandFeatureId ? await brandSetting(services, brandFeatureId) : null;
    const instructions =
      typeof brand?.manualCollectionPaymentInstructions === 'string' && brand.manualCollectionPaymentInstructions.trim() !== ''
        ? brand.manualCollectionPaymentInstructions
        : null;
    return { manualCollection: true, paymentInstructions: instructions, sendEmail: brand?.sendManualCollectionEmail === true && instructions !== null };
  },
  async requestPayment(invoice) {
    if (!invoice.brandFeatureId || !invoice.customerEmail || !isEmailAddress(invoice.customerEmail) || invoice.paymentInstructions === null) return false;
    const brand = await brandSetting(services, invoice.brandFeatureId);
    if (brand?.sendManualCollectionEmail !== true) return false;
    const brandName = typeof brand.name === 'string' ? brand.name : 'your provider';
    const period = `${invoice.year}-${String(invoice.month).padStart(2, '0')}`;
    const sent = await outboxNotifications(services).notify(
      {
        id: `invoice-issued/${invoice.invoiceNumber}`,
        projectId: invoice.projectId,
        eventType: 'INVOICE_ISSUED',
        subject: `${brandName}: invoice ${invoice.invoiceNumber} for ${period}, ${invoice.amount} ${invoice.currency}`,
        text: [
          `Invoice ${invoice.invoiceNumber} for ${period}: ${invoice.amount} ${invoice.currency}, due ${invoice.dueDate.slice(0, 10)}.`,
          '',
          ...invoice.lines.map((l) => `- ${l.description}: ${l.quantity} x ${l.unitPrice} = ${l.amount}`),
          '',
          'How to pay:',
          invoice.paymentInstructions,
        ].join('\n'),
        data: { invoiceNumber: invoice.invoiceNumber, amount: invoice.amount, currency: invoice.currency, dueDate: invoice.dueDate },
        at: invoice.at,
      },
      [{ featureId: emailChannelId(invoice.projectId), recipient: invoice.customerEmail }],
    );
    return sent > 0;
  },
});
