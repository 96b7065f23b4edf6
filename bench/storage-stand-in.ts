/**
 * Storage for the bench's sealer job, in a process of its own as R2 is (serving 80 MB in the sealer's
 * own process would charge the sealer for storage's work): `GET /src/N` answers the Nth bench photo,
 * `PUT` and `DELETE` take anything. Tells its parent its port once listening; ends with its parent.
 */
import { createServer } from "node:http";
import { benchPhotos } from "./photos.ts";

const photos = benchPhotos();
const server = createServer(async (req, res) => {
  const photo = photos[Number(req.url?.split("/").pop())];
  if (req.method === "GET") return res.writeHead(200, { "Content-Length": photo?.length ?? 0 }).end(photo);
  for await (const _chunk of req);
  res.writeHead(200).end();
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on("disconnect", () => process.exit(0));
