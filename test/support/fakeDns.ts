// A local DNS server (dns2) answering from a table, for the white-label DNS check: real DNS messages over
// UDP on 127.0.0.1, so node:dns resolves against it as against any resolver. A name with no record of the
// asked type answers NOERROR without answers (node: ENODATA); a name not in the table NXDOMAIN (ENOTFOUND).
import dns2 from 'dns2';

const { Packet } = dns2;

export interface FakeDnsRecords {
  readonly [name: string]: { readonly CNAME?: string; readonly TXT?: readonly string[]; readonly A?: readonly string[] };
}

export interface FakeDns {
  /** ip:port for WHITE_LABEL_DNS_SERVERS. */
  readonly server: string;
  /** Replaces the table. */
  set(records: FakeDnsRecords): void;
  close(): Promise<void>;
}

export const startFakeDns = async (initial: FakeDnsRecords = {}): Promise<FakeDns> => {
  let records: FakeDnsRecords = initial;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      const name = question?.name.toLowerCase().replace(/\.$/, '') ?? '';
      const entry = records[name];
      if (!question || !entry) {
        response.header.rcode = 3; // NXDOMAIN
        void send(response);
        return;
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      // dns2 encodes plain resource objects (its README's way); its declarations want its class.
      const answer = (resource: object) => response.answers.push(resource as (typeof response.answers)[number]);
      if (entry.CNAME && question.type !== Packet.TYPE.TXT) {
        answer({ ...base, type: Packet.TYPE.CNAME, domain: entry.CNAME });
      } else if (question.type === Packet.TYPE.TXT) {
        for (const data of entry.TXT ?? []) answer({ ...base, type: Packet.TYPE.TXT, data });
      } else if (question.type === Packet.TYPE.A) {
        for (const address of entry.A ?? []) answer({ ...base, type: Packet.TYPE.A, address });
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  if (!addresses.udp) throw new Error('the fake DNS server did not listen on UDP');
  return {
    server: `127.0.0.1:${addresses.udp.port}`,
    set(next) {
      records = next;
    },
    async close() {
      await server.close();
    },
  };
};
