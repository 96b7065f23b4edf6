import type { RootFingerprint } from "../../shared/trust-anchors.ts";
import type { RevocationIndexEntry } from "../../shared/revocation-data.ts";
import { fileExtension } from "../storage/proof-artifacts.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";

export interface PackageRoots {
  tsa: RootFingerprint | null;
  c2pa: RootFingerprint | null;
}

type Lang = "en" | "fr";
const sh = (...lines: string[]) => `\`\`\`sh\n${lines.join("\n")}\n\`\`\``;
const fingerprint = (root: RootFingerprint | null) => (root ? `\`${root.opensslFingerprint}\` (${root.subject})` : "—");

/**
 * Strips a JPEG's APP11 (0xFFEB) segments, where C2PA stores its manifest, before the image data: what
 * remains is the original the device sent, byte for byte (tested in test/e2e/verify-md-commands.e2e.test.ts).
 */
const JPEG_ORIGINAL = `python3 -c '
import sys
data = open(sys.argv[1], "rb").read(); out = bytearray(data[:2]); i = 2
while data[i] == 0xFF and data[i + 1] != 0xDA:
    size = 2 + int.from_bytes(data[i + 2:i + 4], "big")
    if data[i + 1] != 0xEB: out += data[i:i + size]
    i += size
open(sys.argv[2], "wb").write(out + data[i:])
'`;

const TEXT = {
  en: {
    intro:
      "Everything below runs offline in this folder (the unzipped package), with `sha256sum`, `openssl` and `python3`; step 5 also needs `c2patool`, an optional tool that is not standard. Each command is runnable as written.",
    s1: "1. The manifest is the one that was timestamped",
    s1t: "It must print `manifest.json: OK`.",
    s2: "2. Which authority timestamped it, and when",
    s2t: "Read the time (`Time stamp:`, this is `gen_time`) and the authority (`TSA:`; an authority may leave it `unspecified`, its name is then the subject of the certificate that signed the token, among those step 3 lists) from the token itself, not from this file:",
    s3: "3. The timestamp is genuine: check the authority's root yourself",
    s3t: (root: string) =>
      `**A \`chain.pem\` taken from this package proves nothing by itself**: anyone can make a root and an authority with the same names. What makes the check meaningful is a root you obtained elsewhere. The authority's root for this proof has the SHA-256 fingerprint ${root}. Compare it with the authority's own published root (for a qualified authority, its entry in the EU Trusted List, https://eidas.ec.europa.eu/efda/tl-browser/), and with the list of roots the service publishes (\`GET /v1/public/trust-anchors\`, and \`docs/trust-anchors.md\` in its repository). The certificates of \`chain.pem\` and their fingerprints:`,
    s3v: "Save the root you obtained and compared as `tsa-root.pem`, then verify the token against it (the package's chain only supplies the intermediate certificates). It must print `Verification: OK`:",
    s3a: (epoch: number) =>
      `openssl checks the certificates at today's date. Once the authority's certificate has expired, check them at \`gen_time\` (${epoch} seconds since 1970) instead:`,
    s3l: "Limits of `-attime`: it checks no revocation, so it would also accept a back-dated token made with a key that leaked after its certificate expired; it cannot help once a root itself is withdrawn, or once SHA-256 or the authority's signature algorithm is no longer considered secure. Keep this package unchanged: a later archive timestamp over it (RFC 4998) is what keeps such a proof checkable for decades. Step 7 checks the revocation data captured at sealing.",
    s4: "4. The files are the ones listed in the manifest",
    s4t: "Each must print `OK` (each file's hash is its `signed_sha256` in `manifest.json`):",
    s5: "5. Each file's C2PA signature (optional, needs c2patool)",
    s5t: (root: string) =>
      `c2patool (the C2PA reference reader, https://github.com/contentauth/c2pa-rs) is not a standard tool. Trust both the C2PA signing root (SHA-256 ${root}, compare it like the authority's) and the authority's root, or the reader reports \`timeStamp.untrusted\`:`,
    s5n: "A WebM video is the exception: C2PA cannot be embedded in WebM, so it is kept as received (`signed_sha256` equals `sha256`) and is proven by its hash in the timestamped manifest alone. The capture assertion `com.proofseal.capture` names the proof and the step, and keeps what the service observed (`observed`) apart from what the device reported (`reported_by_device`). A file chosen from the device, or one that came with earlier Content Credentials, is recorded as opened (`c2pa.opened`) with the original as its parent ingredient, never as a camera capture.",
    s6: "6. The originals the device sent",
    s6t: "The manifest also gives the SHA-256 of what the device sent (`sha256`). For a JPEG, removing the APP11 segments (where C2PA stores its manifest) gives those bytes back exactly; each must print `OK`:",
    s6o: "For the other formats the signed file cannot be turned back into the original byte for byte: PNG gets a `caBX` chunk and MP4 or HEIC a C2PA box with their offsets rewritten. Their original is proven by the `sha256` in the timestamped manifest, and the C2PA manifest of the signed file binds its content (`c2pa.hash.data` or `c2pa.hash.bmff`).",
    none: "No JPEG in this proof.",
    s7: "7. Revocation at gen_time: the data captured at sealing",
    s7t: "When the proof was sealed, the service fetched the CRL that the issuer of each certificate publishes (at the address written in the certificate) and put it in `revocation/` beside the certificate it covers; `revocation/index.json` says which, from where and when. For each one: the first command checks that the CRL is signed by the certificate's issuer, and must print `verify OK` (openssl still exits with 0 when it prints `verify failure`), then its dates: `lastUpdate` before `gen_time` or at most an hour after it, `nextUpdate` after it; the second checks the certificate against it at `gen_time`, or at the CRL's `lastUpdate` when it was issued just after the token (openssl refuses a CRL issued after the time it checks at), and must print `OK`. `certificate revoked` means the CRL lists it: the token can then be trusted only if it was revoked after `gen_time` (`openssl crl -inform DER -in <crl> -noout -text` gives the revocation and invalidity dates).",
    s7u: "No revocation data could be captured at sealing for these certificates, so it is not in the package:",
    s7n: "This proof was sealed before the service captured revocation data: the package holds none.",
    s8: "8. Once certificates have expired: the evidence record",
    s8t: "Certificates expire, keys may leak years later, algorithms weaken. Step 3's `-attime` then only shows what the certificates were worth at `gen_time`, not that the token was made before they expired or were revoked. That is what `evidence-record.ers` is for (RFC 4998, added about an hour after sealing): archive timestamps over `manifest.json`, `proof.tsr` and `revocation/`, made over many proofs at once through a hash tree and renewed by the service before each authority certificate expires (and with a new hash algorithm when SHA-256 is to be replaced). Each archive timestamp shows that what came before it existed while its certificates were still valid. **openssl cannot check an evidence record by itself**: it has no command for its hash trees; it can only show that the file holds RFC 3161 tokens (the first command counts them).",
    s8v: "Check the record with `proof-verify`, the offline verifier in the service's repository (`verifier/`, Node 24, no network; `npm link` in that folder puts it on your PATH, or use `npm exec --prefix <repository>/verifier proof-verify --` instead of `proof-verify`). Run in this folder with the two fingerprints you compared in steps 3 and 5, it must end with `VERIFIED`; it also names the latest renewal and says when its authority certificate expires, or that it has expired and the record is overdue for renewal (download the package again for the latest renewals):",
    s8n: "This package holds no evidence record yet: it is added about an hour after sealing. Download the package again then; meanwhile `proof-verify` checks everything else:",
  },
  fr: {
    intro:
      "Tout ce qui suit s'exécute hors ligne dans ce dossier (le paquet décompressé), avec `sha256sum`, `openssl` et `python3` ; l'étape 5 demande aussi `c2patool`, un outil optionnel qui n'est pas standard. Chaque commande s'exécute telle qu'elle est écrite.",
    s1: "1. Le manifeste est bien celui qui a été horodaté",
    s1t: "Elle doit afficher `manifest.json: OK`.",
    s2: "2. Quelle autorité l'a horodaté, et quand",
    s2t: "Lisez l'heure (`Time stamp:`, c'est `gen_time`) et l'autorité (`TSA:` ; une autorité peut la laisser `unspecified`, son nom est alors le sujet du certificat qui a signé le jeton, parmi ceux que liste l'étape 3) dans le jeton lui-même, pas dans ce fichier :",
    s3: "3. L'horodatage est authentique : vérifiez vous-même la racine de l'autorité",
    s3t: (root: string) =>
      `**Un \`chain.pem\` pris dans ce paquet ne prouve rien à lui seul** : n'importe qui peut fabriquer une racine et une autorité portant les mêmes noms. Ce qui donne son sens à la vérification, c'est une racine obtenue ailleurs. La racine de l'autorité de cette preuve a pour empreinte SHA-256 ${root}. Comparez-la avec la racine publiée par l'autorité elle-même (pour une autorité qualifiée, son entrée dans la liste de confiance de l'UE, https://eidas.ec.europa.eu/efda/tl-browser/), et avec la liste des racines que publie le service (\`GET /v1/public/trust-anchors\`, et \`docs/trust-anchors.md\` dans son dépôt). Les certificats de \`chain.pem\` et leurs empreintes :`,
    s3v: "Enregistrez la racine obtenue et comparée sous le nom `tsa-root.pem`, puis vérifiez le jeton avec elle (la chaîne du paquet ne fournit que les certificats intermédiaires). La commande doit afficher `Verification: OK` :",
    s3a: (epoch: number) =>
      `openssl vérifie les certificats à la date du jour. Une fois le certificat de l'autorité expiré, vérifiez-les plutôt à \`gen_time\` (${epoch} secondes depuis 1970) :`,
    s3l: "Limites de `-attime` : aucune révocation n'est vérifiée, donc un jeton antidaté fait avec une clé divulguée après l'expiration de son certificat serait accepté aussi ; cela ne sert plus une fois la racine elle-même retirée, ni quand SHA-256 ou l'algorithme de signature de l'autorité ne sont plus jugés sûrs. Gardez ce paquet intact : c'est un horodatage d'archive ultérieur qui le couvre (RFC 4998) qui permet de vérifier une telle preuve pendant des décennies. L'étape 7 vérifie les données de révocation recueillies au scellement.",
    s4: "4. Les fichiers sont ceux du manifeste",
    s4t: "Chaque ligne doit afficher `OK` (l'empreinte de chaque fichier est son `signed_sha256` dans `manifest.json`) :",
    s5: "5. La signature C2PA de chaque fichier (optionnel, demande c2patool)",
    s5t: (root: string) =>
      `c2patool (le lecteur C2PA de référence, https://github.com/contentauth/c2pa-rs) n'est pas un outil standard. Faites confiance à la fois à la racine de signature C2PA (SHA-256 ${root}, à comparer comme celle de l'autorité) et à la racine de l'autorité, sinon le lecteur signale \`timeStamp.untrusted\` :`,
    s5n: "Exception : une vidéo WebM, dans laquelle C2PA ne peut pas être intégré, est gardée telle que reçue (`signed_sha256` égale `sha256`) et n'est prouvée que par son empreinte dans le manifeste horodaté. L'assertion de capture `com.proofseal.capture` nomme la preuve et l'étape, et sépare ce que le service a constaté (`observed`) de ce que l'appareil a déclaré (`reported_by_device`). Un fichier choisi sur l'appareil, ou déjà porteur de Content Credentials, est inscrit comme ouvert (`c2pa.opened`) avec l'original pour ingrédient parent, jamais comme une prise de vue.",
    s6: "6. Les originaux envoyés par l'appareil",
    s6t: "Le manifeste donne aussi l'empreinte SHA-256 de ce que l'appareil a envoyé (`sha256`). Pour un JPEG, retirer les segments APP11 (où C2PA range son manifeste) redonne exactement ces octets ; chaque ligne doit afficher `OK` :",
    s6o: "Pour les autres formats, le fichier signé ne peut pas redevenir l'original octet pour octet : le PNG reçoit un bloc `caBX`, le MP4 ou le HEIC une boîte C2PA et leurs décalages sont réécrits. Leur original est prouvé par le `sha256` du manifeste horodaté, et le manifeste C2PA du fichier signé lie son contenu (`c2pa.hash.data` ou `c2pa.hash.bmff`).",
    none: "Aucun JPEG dans cette preuve.",
    s7: "7. Révocation à gen_time : les données recueillies au scellement",
    s7t: "Au scellement, le service a récupéré la CRL que publie l'émetteur de chaque certificat (à l'adresse inscrite dans le certificat) et l'a placée dans `revocation/` à côté du certificat qu'elle couvre ; `revocation/index.json` dit lequel, d'où et quand. Pour chacun : la première commande vérifie que la CRL est signée par l'émetteur du certificat, et doit afficher `verify OK` (openssl termine quand même avec 0 quand il affiche `verify failure`), puis ses dates : `lastUpdate` avant `gen_time` ou au plus une heure après, `nextUpdate` après ; la seconde vérifie le certificat avec elle à `gen_time`, ou au `lastUpdate` de la CRL quand elle a été émise juste après le jeton (openssl refuse une CRL émise après l'instant où il vérifie), et doit afficher `OK`. `certificate revoked` signifie que la CRL le liste : le jeton n'est alors digne de confiance que si la révocation est postérieure à `gen_time` (`openssl crl -inform DER -in <crl> -noout -text` donne les dates de révocation et d'invalidité).",
    s7u: "Aucune donnée de révocation n'a pu être recueillie au scellement pour ces certificats ; elle n'est donc pas dans le paquet :",
    s7n: "Cette preuve a été scellée avant que le service ne recueille les données de révocation : le paquet n'en contient pas.",
    s8: "8. Une fois les certificats expirés : l'enregistrement de preuve",
    s8t: "Les certificats expirent, des clés peuvent être divulguées des années plus tard, les algorithmes s'affaiblissent. Le `-attime` de l'étape 3 ne montre alors que ce que valaient les certificats à `gen_time`, pas que le jeton a été fait avant leur expiration ou leur révocation. C'est le rôle de `evidence-record.ers` (RFC 4998, ajouté environ une heure après le scellement) : des horodatages d'archive sur `manifest.json`, `proof.tsr` et `revocation/`, faits sur de nombreuses preuves à la fois grâce à un arbre de hachage et renouvelés par le service avant l'expiration de chaque certificat d'autorité (et avec un nouvel algorithme de hachage quand SHA-256 doit être remplacé). Chaque horodatage d'archive montre que ce qui le précède existait tant que ses certificats étaient encore valides. **openssl ne sait pas vérifier seul un enregistrement de preuve** : il n'a aucune commande pour ses arbres de hachage ; il peut seulement montrer que le fichier contient des jetons RFC 3161 (la première commande les compte).",
    s8v: "Vérifiez l'enregistrement avec `proof-verify`, le vérificateur hors ligne du dépôt du service (`verifier/`, Node 24, sans réseau ; `npm link` dans ce dossier le met dans votre PATH, ou utilisez `npm exec --prefix <dépôt>/verifier proof-verify --` au lieu de `proof-verify`). Lancé dans ce dossier avec les deux empreintes comparées aux étapes 3 et 5, il doit finir par `VERIFIED` ; il nomme aussi le dernier renouvellement et dit quand expire son certificat d'autorité, ou qu'il a expiré et que le renouvellement est en retard (téléchargez de nouveau le paquet pour avoir les derniers renouvellements) :",
    s8n: "Ce paquet ne contient pas encore d'enregistrement de preuve : il est ajouté environ une heure après le scellement. Téléchargez de nouveau le paquet à ce moment-là ; en attendant, `proof-verify` vérifie tout le reste :",
  },
} as const;

/**
 * Step 7's commands for each captured CRL: its signature by the issuer (the next certificate up, or the
 * root), then the certificate checked against it with openssl's own chain building, at gen_time or at the
 * CRL's lastUpdate when that is later (openssl calls a CRL issued after -attime "not yet valid").
 */
function revocationCommands(entries: RevocationIndexEntry[], genEpoch: number): string[] {
  const root = { tsa: "tsa-root.pem", c2pa: "c2pa-trust-anchor.pem" } as const;
  return entries.flatMap((entry) => {
    if (entry.crl === null) return [];
    const above = entries.filter((other) => other.chain === entry.chain && other.position > entry.position);
    const issuer = above.find((other) => other.position === entry.position + 1)?.certificate ?? root[entry.chain];
    const untrusted = [...(entry.chain === "tsa" ? ["chain.pem"] : []), ...above.map((other) => other.certificate)]
      .map((file) => ` -untrusted ${file}`)
      .join("");
    const at = Math.max(genEpoch, Math.ceil(Date.parse(entry.this_update ?? "") / 1000) || 0);
    return [
      `openssl crl -inform DER -in ${entry.crl} -CAfile ${issuer} -noout -lastupdate -nextupdate`,
      `openssl verify -crl_check -CRLfile ${entry.crl} -CAfile ${root[entry.chain]}${untrusted} -attime ${at} ${entry.certificate}`,
    ];
  });
}

function revocationStep(revocation: RevocationIndexEntry[] | null, genEpoch: number, lang: Lang): string[] {
  const t = TEXT[lang];
  if (revocation === null) return [`### ${t.s7}`, t.s7n];
  const commands = revocationCommands(revocation, genEpoch);
  const missing = revocation.filter((entry) => entry.status === "unavailable").map((entry) => `- \`${entry.certificate}\` (${entry.subject}): ${entry.reason}`);
  return [`### ${t.s7}`, t.s7t, ...(commands.length === 0 ? [] : [sh(...commands)]), ...(missing.length === 0 ? [] : [t.s7u, missing.join("\n")])];
}

/**
 * Step 8: the evidence record (RFC 4998), which openssl cannot check; `proof-verify` can, run in this
 * folder with the package's root fingerprints (test/e2e/evidence-record.e2e.test.ts runs these commands).
 */
function evidenceStep(roots: PackageRoots, hasEvidenceRecord: boolean, lang: Lang): string[] {
  const t = TEXT[lang];
  const verify = `proof-verify . --tsa-root-sha256 ${roots.tsa?.sha256 ?? "<hex>"} --c2pa-root-sha256 ${roots.c2pa?.sha256 ?? "<hex>"}`;
  if (!hasEvidenceRecord) return [`### ${t.s8}`, t.s8n, sh(verify)];
  return [`### ${t.s8}`, t.s8t, sh("openssl asn1parse -inform DER -in evidence-record.ers | grep -c :pkcs7-signedData"), t.s8v, sh(verify)];
}

/** The numbered offline steps of VERIFY.md in one language: both languages print the very same commands. */
export function verifySteps(
  proof: ProofRow,
  files: FileRow[],
  roots: PackageRoots,
  lang: Lang,
  revocation: RevocationIndexEntry[] | null = null,
  hasEvidenceRecord = false,
): string {
  const t = TEXT[lang];
  const epoch = proof.timestampGenTime ? Math.floor(Date.parse(proof.timestampGenTime) / 1000) : 0;
  const name = (file: FileRow) => `files/${file.id}.${fileExtension(file.contentType)}`;
  const signed = files.filter((file) => file.signedSha256);
  const jpegs = signed.filter((file) => file.contentType === "image/jpeg");
  const c2pa = signed.filter((file) => file.contentType !== "video/webm");
  return [
    t.intro,
    `### ${t.s1}`,
    sh(`echo "${proof.manifestSha256}  manifest.json" | sha256sum -c`),
    t.s1t,
    `### ${t.s2}`,
    t.s2t,
    sh("openssl ts -reply -in proof.tsr -text | grep -E '^(Time stamp|TSA|Serial number|Policy OID):'"),
    `### ${t.s3}`,
    t.s3t(fingerprint(roots.tsa)),
    sh(
      `awk '/-----BEGIN CERTIFICATE-----/ { n++ } { print > ("chain-" n ".pem") }' chain.pem`,
      `for f in chain-*.pem; do openssl x509 -in "$f" -noout -subject -fingerprint -sha256; done`,
    ),
    t.s3v,
    sh("openssl ts -verify -data manifest.json -in proof.tsr -CAfile tsa-root.pem -untrusted chain.pem"),
    t.s3a(epoch),
    sh(`openssl ts -verify -data manifest.json -in proof.tsr -CAfile tsa-root.pem -untrusted chain.pem -attime ${epoch}`),
    t.s3l,
    `### ${t.s4}`,
    t.s4t,
    sh(...signed.map((file) => `echo "${file.signedSha256}  ${name(file)}" | sha256sum -c`)),
    `### ${t.s5}`,
    t.s5t(fingerprint(roots.c2pa)),
    sh(
      "openssl x509 -in c2pa-trust-anchor.pem -noout -subject -fingerprint -sha256",
      "cat c2pa-trust-anchor.pem tsa-root.pem > c2pa-anchors.pem",
      ...c2pa.map((file) => `c2patool ${name(file)} trust --trust_anchors c2pa-anchors.pem`),
    ),
    t.s5n,
    `### ${t.s6}`,
    jpegs.length === 0 ? t.none : t.s6t,
    ...(jpegs.length === 0
      ? []
      : [
          sh(
            ...jpegs.flatMap((file) => [
              `${JPEG_ORIGINAL} ${name(file)} original-${file.id}.jpg`,
              `echo "${file.sha256}  original-${file.id}.jpg" | sha256sum -c`,
            ]),
          ),
        ]),
    t.s6o,
    ...revocationStep(revocation, epoch, lang),
    ...evidenceStep(roots, hasEvidenceRecord, lang),
  ].join("\n\n");
}
