import type { RootFingerprint } from "../../shared/trust-anchors.ts";
import { type RevocationIndexEntry, SEALED_REVOCATION_FILES_OID } from "../../shared/revocation-data.ts";
import { verdictLine } from "./verify-proof.ts";
import { fileExtension } from "../storage/objects/bucket.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";

export interface PackageRoots {
  tsa: RootFingerprint | null;
  c2pa: RootFingerprint | null;
}

type Lang = "en" | "fr";
const sh = (...lines: string[]) => `\`\`\`sh\n${lines.join("\n")}\n\`\`\``;

/**
 * Step 1: each root taken from the list the service publishes, never from the package. The package's own
 * chain.pem and c2pa-trust-anchor.pem only say which published root to take (by the SHA-256 of each of their
 * certificates); none published, the step fails. `published-roots.json` is fetched once; the roots saved
 * are the published PEMs. (Runs as written: test/e2e/verify-md-commands.e2e.test.ts.)
 */
const PUBLISHED_ROOTS = `python3 -c '
import base64, hashlib, json, re, sys
published = json.load(open("published-roots.json"))["data"]
def fingerprints(path):
    pem = open(path).read()
    return [hashlib.sha256(base64.b64decode(body)).hexdigest() for body in re.findall("-----BEGIN CERTIFICATE-----(.+?)-----END CERTIFICATE-----", pem, re.S)]
failed = 0
for package_file, kind, saved in (("chain.pem", "timestamp_authority", "tsa-root.pem"), ("c2pa-trust-anchor.pem", "c2pa", "service-root.pem")):
    found = [root for root in published if root["kind"] == kind and root["sha256"] in fingerprints(package_file)]
    if not found:
        print(saved + ": FAILED, no root of " + package_file + " is one the service publishes"); failed = 1; continue
    open(saved, "w").write(found[0]["pem"])
    print(saved + ": " + found[0]["subject"] + ", " + found[0]["mode"] + ", SHA-256 " + found[0]["sha256"])
sys.exit(failed)
'`;

/**
 * gen_time in seconds since 1970, read from proof.tsr itself: VERIFY.md is not sealed, so a number written in it
 * could be the genuine token's while the package carries a forger's later one (forger finding F6).
 */
const GEN_TIME_EPOCH = `$(openssl ts -reply -in proof.tsr -text | python3 -c "import sys, re, datetime; t = re.sub(r'[.][0-9]+', '', re.search(r'^Time stamp: (.+) GMT', sys.stdin.read(), re.M).group(1)); print(int(datetime.datetime.strptime(t, '%b %d %H:%M:%S %Y').replace(tzinfo=datetime.timezone.utc).timestamp()))")`;

/** Step 2: after the seal verified, what the sealed manifest states (the facts a dispute turns on). */
const SEALED_FACTS = `python3 -c '
import json
manifest = json.load(open("manifest.json"))
for field in ("proof_id", "mode", "organization_id", "external_reference", "party", "stage", "category", "session_id", "compare_to"):
    print(field + ": " + json.dumps(manifest.get(field)))
print("files: " + str(len(manifest["files"])))
'`;

/**
 * Step 4: the files against the sealed manifest, never against a list in this file: every file it lists is
 * in files/ with its signed_sha256, and files/ holds nothing else.
 */
const FILES_AGAINST_MANIFEST = `python3 -c '
import glob, hashlib, json, sys
failed = 0; listed = set()
for entry in json.load(open("manifest.json"))["files"]:
    found = glob.glob("files/" + entry["id"] + ".*")
    listed.update(found)
    if len(found) != 1:
        print("files/" + entry["id"] + ": FAILED, missing"); failed = 1; continue
    same = hashlib.sha256(open(found[0], "rb").read()).hexdigest() == entry["signed_sha256"]
    print(found[0] + (": OK" if same else ": FAILED, not the file the manifest seals")); failed |= not same
for extra in sorted(set(glob.glob("files/*")) - listed):
    print(extra + ": FAILED, not in the sealed manifest"); failed = 1
sys.exit(failed)
'`;

/**
 * Step 6: each JPEG's original, against the `sha256` the sealed manifest gives: removing the APP11 (0xFFEB)
 * segments, where C2PA stores its manifest, before the image data gives back what the device sent, byte for
 * byte, unless the file arrived with earlier Content Credentials (they are APP11 too).
 */
const JPEG_ORIGINALS = `python3 -c '
import hashlib, json, sys
def original(data):
    out = bytearray(data[:2]); i = 2
    while data[i] == 0xFF and data[i + 1] != 0xDA:
        size = 2 + int.from_bytes(data[i + 2:i + 4], "big")
        if data[i + 1] != 0xEB: out += data[i:i + size]
        i += size
    return bytes(out + data[i:])
failed = 0
for entry in json.load(open("manifest.json"))["files"]:
    if entry["content_type"] != "image/jpeg": continue
    name = "original-" + entry["id"] + ".jpg"
    if entry.get("prior_credentials"):
        print(name + ": not recoverable, the file arrived with earlier Content Credentials"); continue
    data = original(open("files/" + entry["id"] + ".jpg", "rb").read())
    open(name, "wb").write(data)
    same = hashlib.sha256(data).hexdigest() == entry["sha256"]
    print(name + (": OK" if same else ": FAILED, not the original the manifest seals")); failed |= not same
sys.exit(failed)
'`;

/**
 * Step 7's first command: the index of the revocation data, which every package sealed with revocation data
 * carries, naming each chain's signer (the core's `revocation`, docs/adr/0040). Its absence, or a signer left
 * out, fails; a certificate whose CRL could not be had at sealing is printed with the reason, not failed.
 */
const REVOCATION_INDEX_CHECK = `python3 -c '
import json, sys
try:
    index = json.load(open("revocation/index.json"))
except OSError:
    print("revocation/index.json: FAILED, missing"); sys.exit(1)
failed = 0
for chain in ("tsa", "c2pa"):
    if not any(entry["chain"] == chain and entry["position"] == 1 for entry in index):
        print("revocation/index.json: FAILED, no entry for the " + chain + " signer"); failed = 1
for entry in index:
    print(entry["certificate"] + (": CRL captured at sealing" if entry["status"] == "captured" else ": not captured at sealing (" + str(entry["reason"]) + "), not checked"))
sys.exit(failed)
'`;

/**
 * Step 7's first command: the files of `revocation/` against the list manifest.p7s seals (each by name and
 * SHA-256 in a signed attribute, docs/adr/0049; the core's `revocation_sealed`), read with openssl asn1parse.
 * The attribute must occur once: a second copy (in an unsigned part) could only be a forger's. A seal without
 * it was made before the service listed them: the index is then the package's word (said, not failed).
 */
const SEALED_REVOCATION_LIST = `python3 -c '
import hashlib, os, re, subprocess, sys
lines = subprocess.run(["openssl", "asn1parse", "-inform", "DER", "-in", "manifest.p7s"], check=True, capture_output=True, text=True).stdout.splitlines()
parsed = [(int(m.group(1)), m.group(2)) for m in (re.match(r"\\s*\\d+:d=(\\d+) .*?(?:prim|cons): *(.*)$", line) for line in lines) if m]
at = [i for i, (depth, rest) in enumerate(parsed) if rest.startswith("OBJECT") and rest.endswith(":${SEALED_REVOCATION_FILES_OID}")]
if len(at) > 1:
    print("manifest.p7s: FAILED, lists the revocation files more than once"); sys.exit(1)
if not at:
    print("manifest.p7s: lists no revocation files (sealed before the service listed them), not checked"); sys.exit(0)
depth = parsed[at[0]][0]; sealed = {}; name = None
for d, rest in parsed[at[0] + 1:]:
    if d < depth: break
    if rest.startswith("UTF8STRING"): name = rest.split(":", 1)[1]
    elif rest.startswith("OCTET STRING") and name is not None: sealed[name] = rest.split(":", 1)[1].lower(); name = None
held = sorted(os.path.join(top, file) for top, _, files in os.walk("revocation") for file in files)
failed = 0
for path in sorted(set(held) | set(sealed)):
    if path not in sealed:
        print(path + ": FAILED, not in the list manifest.p7s seals"); failed = 1
    elif path not in held:
        print(path + ": FAILED, missing, manifest.p7s seals it"); failed = 1
    elif hashlib.sha256(open(path, "rb").read()).hexdigest() != sealed[path]:
        print(path + ": FAILED, not the file manifest.p7s seals"); failed = 1
    else:
        print(path + ": sealed, OK")
sys.exit(failed)
'`;

/**
 * Step 9's check of pdfsig's answer: the first signature the PAdES seal, valid and trusted under the service
 * root put in the NSS database (pdfsig trusts nothing else), the last a document timestamp covering the whole
 * file. poppler does not verify the document timestamp itself (docs/adr/0048): proof-verify does.
 */
const reportSignatures = (name: string) => `python3 -c '
import re, sys
signatures = re.split(r"^Signature #[0-9]+:$", sys.stdin.read(), flags=re.M)[1:]
seal, last = (signatures[0], signatures[-1]) if len(signatures) >= 2 else ("", "")
checks = {
    "the seal, then document timestamps": len(signatures) >= 2,
    "the seal is a PAdES signature": "Signature Type: ETSI.CAdES.detached" in seal,
    "the seal is valid": "Signature Validation: Signature is Valid." in seal,
    "the seal chains to service-root.pem": "Certificate Validation: Certificate is Trusted." in seal,
    "the last document timestamp covers the whole file": "- Total document signed" in last,
}
for check, held in checks.items():
    print("${name}: " + check + (": OK" if held else ": FAILED"))
sys.exit(not all(checks.values()))
'`;

/** Step 9: a pair report's before-manifest.json is the before's manifest the sealed manifest names by SHA-256. */
const BEFORE_MANIFEST = `python3 -c '
import hashlib, json, sys
same = hashlib.sha256(sys.stdin.buffer.read()).hexdigest() == json.load(open("manifest.json"))["compare_to"]["manifest_sha256"]
print("pair-report.pdf: before-manifest.json" + (" is the before the sealed manifest names: OK" if same else ": FAILED, not the before the sealed manifest names"))
sys.exit(not same)
'`;

/**
 * What proof-verify's last line must be for this proof, exactly (the core's verdictLine: a test proof's says so),
 * and what the other lines mean.
 */
const verdictText = {
  en: (line: string) =>
    `Its last line must be exactly \`${line}\`. \`ORIGIN NOT ESTABLISHED\` means that a root was not pinned; \`NOT VERIFIED\` that a check failed (the lines marked \`FAIL\` say which).`,
  fr: (line: string) =>
    `Sa dernière ligne doit être exactement \`${line}\`. \`ORIGIN NOT ESTABLISHED\` signifie qu'une racine n'a pas été épinglée ; \`NOT VERIFIED\` qu'un contrôle a échoué (les lignes marquées \`FAIL\` disent lequel).`,
};

/** The SHA-256 of a saved root's DER, as proof-verify takes it. */
const rootSha256 = (file: string) => `"$(openssl x509 -in ${file} -outform DER | sha256sum | cut -c1-64)"`;

const TEXT = {
  en: {
    intro:
      "Everything below runs in this folder (the unzipped package) with `curl` (step 1 only), `openssl` and `python3`; step 5 also needs `c2patool`, an optional tool that is not standard, and step 9 `pdfsig` (poppler-utils), `certutil` (NSS tools) and `qpdf`. Each command is runnable as written, and **nothing is compared with a value written in this file**: the files are checked against `manifest.json`, whose seal and timestamp steps 2 and 3 verify with roots obtained outside the package. Each step says which checks of `proof-verify` and of the public verification page it is (their names in brackets) and what a failure means.",
    s1: "1. The roots, obtained outside this package (`tsa_root_pinned`, `service_root_pinned`)",
    s1t: (url: string) =>
      `**A \`chain.pem\` or \`c2pa-trust-anchor.pem\` taken from this package proves nothing by itself**: anyone can make a root and an authority with the same names. What makes the next steps meaningful is a root obtained elsewhere: the list of roots the service publishes (${url}, and \`docs/trust-anchors.md\` in its repository), and for the timestamp authority its own publication (for a qualified authority, its entry in the EU Trusted List, https://eidas.ec.europa.eu/efda/tl-browser/). These commands fetch the published list, take from it the roots this package's chains name, and save them as \`tsa-root.pem\` (the authority's) and \`service-root.pem\` (the service's, which seals the proof and signs its files). Each line printed must name a root and its mode (\`test\`: no legal value); compare the SHA-256 with the authority's own publication too. **This file is not sealed**: before running the commands, check that the address they fetch is the service's own address as you know it independently (its website, your contract with it, \`docs/trust-anchors.md\`), not merely the one written here; a forged package can name a forger's list.`,
    s1f: "**FAILED** means that the package's chains end at a root the service does not publish: the package was not made by this service, or its chains were replaced. Stop there: nothing else in it can be trusted.",
    s2: "2. The seal over the whole proof (`manifest_seal`)",
    s2t: "The service signed `manifest.json` (every file, its step and position, both hashes, the reference, the party, the mode) with its proof seal, `manifest.p7s`, a CMS signature that chains to the service root of step 1. It must print `Verification successful`, then what the sealed manifest states:",
    s2a: (epoch: number) =>
      `openssl checks the seal's certificate at today's date. Once it has expired, check it at \`gen_time\` (${epoch} seconds since 1970, read from the token in step 3), when the token proves the manifest existed:`,
    s2f: "**A failure** (`Verification failure`, `content verify error`) means that `manifest.json` is not the list the service sealed: it was changed (a file dropped or added, another reference, party or proof id) or made by someone else. Nothing listed in it can then be trusted.",
    s2n: "This proof was sealed before the service sealed proofs as a whole: its package has no `manifest.p7s`, so nothing but the timestamp ties its manifest to the service, and `proof-verify` cannot say VERIFIED for it. What the manifest states:",
    s3: "3. The timestamp (`timestamp_imprint`, `timestamp_signature`, `timestamp_signer`, `timestamp_chain`)",
    s3t: "Read the time (`Time stamp:`, this is `gen_time`) and the authority (`TSA:`; an authority may leave it `unspecified`, its name is then the subject of the certificate that signed the token) from the token itself, then verify the token over `manifest.json` against the authority's root of step 1 (the package's chain only supplies the intermediate certificates). It must print `Verification: OK`:",
    s3a: (epoch: number) =>
      `openssl checks the certificates at today's date. Once the authority's certificate has expired, check them at \`gen_time\` (${epoch} seconds since 1970) instead:`,
    s3f: "**A failure** means that the token does not cover this `manifest.json` (it was changed after it was timestamped) or was not issued by the authority whose root you obtained.",
    s3l: "Limits of `-attime`: it checks no revocation, so it would also accept a back-dated token made with a key that leaked after its certificate expired; it cannot help once a root itself is withdrawn, or once SHA-256 or the authority's signature algorithm is no longer considered secure. Keep this package unchanged: a later archive timestamp over it (RFC 4998, step 8) is what keeps such a proof checkable for decades. Step 7 checks the revocation data captured at sealing.",
    s4: "4. The files are the ones the manifest seals (`files_listed`, `file_hash:<file id>`)",
    s4t: "Each file listed in the sealed `manifest.json` must be in `files/` with its `signed_sha256`, and `files/` must hold nothing else. Each line must end with `OK`:",
    s4f: "**FAILED** means that a file was replaced (`not the file the manifest seals`), removed (`missing`) or added (`not in the sealed manifest`) after sealing: that file proves nothing, and a missing one may be the one that mattered.",
    s5: "5. Each file's C2PA signature (`file_c2pa:<file id>`, `file_names_proof:<file id>`; optional, needs c2patool)",
    s5t: "c2patool (the C2PA reference reader, https://github.com/contentauth/c2pa-rs) is not a standard tool. Trust only the two roots of step 1, or the reader reports `signingCredential.untrusted` or `timeStamp.untrusted`; each file must read as `Trusted`:",
    s5n: "Its capture assertion `com.proofseal.capture` must name this proof as the sealed manifest does (`proof_id`, `session_id`, `organization_id`, `mode`, `external_reference`, `party`, `stage`, `compare_to`) and the file's `step_id` and `position`: a file that names another proof was taken from it. The assertion keeps what the service observed apart from what the device reported. A WebM video is the exception: C2PA cannot be embedded in WebM, so it is kept as received (`signed_sha256` equals `sha256`) and is proven by the sealed manifest alone. A file chosen from the device, or one that came with earlier Content Credentials, is recorded as opened (`c2pa.opened`) with the original as its parent ingredient, never as a camera capture.",
    s5f: "**Not `Trusted`**, or another proof named, means that the file's signature is not the service's, or that the file belongs to another proof. `Trusted` alone is not enough: c2patool needs the authority's root for the C2PA timestamps, so it would also trust a signer issued under that root. The signer's issuer (`signature_info.issuer`) must be the organisation of the service root of step 1; `proof-verify` (step 8) checks that the service root itself issued it (`file_c2pa`).",
    s6: "6. The originals the device sent (`file_original:<file id>`)",
    s6t: "The sealed manifest also gives the SHA-256 of what the device sent (`sha256`). For a JPEG, removing the APP11 segments (where C2PA stores its manifest) gives those bytes back exactly (written as `original-<file id>.jpg`); each must print `OK`:",
    s6o: "For the other formats the signed file cannot be turned back into the original byte for byte: PNG gets a `caBX` chunk and MP4 or HEIC a C2PA box with their offsets rewritten. Their original is proven by the `sha256` in the sealed manifest, and the C2PA manifest of the signed file binds its content (`c2pa.hash.data` or `c2pa.hash.bmff`). **FAILED** means that the signed file does not hold the original the manifest seals.",
    none: "No JPEG in this proof.",
    s7: "7. Revocation at gen_time: the data captured at sealing (`revocation`, `revocation_sealed`)",
    s7l: "The revocation data is added to the package after the timestamp, so the token does not cover it; the seal does: `manifest.p7s` lists every file of `revocation/` by name and SHA-256 in a signed attribute, which step 2 verified with the seal. The command below compares the files with that list; each line must end with `OK`. **FAILED** means that the revocation data was edited, removed or added after sealing (`not the file manifest.p7s seals`, `missing`, `not in the list`): the rest of this step, which reads `revocation/index.json`, then proves nothing, and `proof-verify` refuses the package too.",
    s7i: "`revocation/index.json` says, for each certificate relied on (the authority's signer `tsa`, the C2PA signer `c2pa`), whether its issuer's CRL was captured at sealing, from where and when, or why not. Every package sealed with revocation data carries it: the command below must list both signers. **FAILED** (the index missing, or a signer left out) means that the package was stripped of its revocation data, and `proof-verify` refuses it too. A certificate printed `not captured at sealing` (its issuer's CRL could not be had then) is reported with the reason, not failed: nothing below checks it.",
    s7t: "When the proof was sealed, the service fetched the CRL that the issuer of each certificate publishes (at the address written in the certificate) and put it in `revocation/` beside the certificate it covers; `revocation/index.json` says which, from where and when. For each one: the first command checks that the CRL is signed by the certificate's issuer, and must print `verify OK` (openssl still exits with 0 when it prints `verify failure`), then its dates: `lastUpdate` before `gen_time` or at most an hour after it, `nextUpdate` after it; the second checks the certificate against it, with the root of step 1, at `gen_time`, or at the CRL's `lastUpdate` when it was issued just after the token (openssl refuses a CRL issued after the time it checks at), and must print `OK`. `certificate revoked` means the CRL lists it: the token can then be trusted only if it was revoked after `gen_time` (`openssl crl -inform DER -in <crl> -noout -text` gives the revocation and invalidity dates).",
    s7s: "The proof seal's certificate (in `manifest.p7s`) is issued by the service root, like the C2PA signer, and names the same CRL: these commands take it out of the seal and check it against that CRL at `gen_time`; the last must print `OK`. `certificate revoked` means that the seal's key was withdrawn: the proof can then be trusted only if that happened after `gen_time`.",
    s7u: "No revocation data could be captured at sealing for these certificates, so it is not in the package (reported, not failed):",
    s7n: "This proof was sealed before the service captured revocation data: the package holds none.",
    s9: "9. The sealed PDF reports (`report`, `pair_report`)",
    s9t: "`report.pdf` (and an after's `pair-report.pdf`, the pair's) is what a court reads first. Put the service root of step 1 in an NSS database (`certutil`, from NSS's tools) for `pdfsig` (poppler) to trust, then check the report's seal and that it carries this package's files byte for byte (`qpdf`). Every line must end with `OK`, and `cmp` must print nothing:",
    s9f: "**FAILED**, or a `cmp` difference, means that this PDF is not this proof's sealed report: another proof's, a test report, a report changed after its seal, or no report of the service at all. Trust the package, not the PDF. pdfsig does not verify the document timestamp, nor that only validation data was added after the seal (a page drawn over and stamped again): `proof-verify` (step 8) checks both, and refuses an added file the package does not list (`package_contents`), such as a second PDF beside `report.pdf`.",
    s9n: "This package holds no sealed PDF report yet: it is made within about a minute of sealing. Download the package again to have it.",
    s8: "8. Once certificates have expired: the evidence record (`evidence_record`, `long_term`)",
    s8t: "Certificates expire, keys may leak years later, algorithms weaken. Step 3's `-attime` then only shows what the certificates were worth at `gen_time`, not that the token was made before they expired or were revoked. That is what `evidence-record.ers` is for (RFC 4998, added about an hour after sealing): archive timestamps over `manifest.json`, `proof.tsr` and `revocation/`, made over many proofs at once through a hash tree and renewed by the service before each authority certificate expires (and with a new hash algorithm when SHA-256 is to be replaced). Each archive timestamp shows that what came before it existed while its certificates were still valid. **openssl cannot check an evidence record by itself**: it has no command for its hash trees; it can only show that the file holds RFC 3161 tokens (the first command counts them).",
    s8v: (line: string) =>
      `Check the record, and every step above at once, with \`proof-verify\`, the offline verifier in the service's repository (\`verifier/\`, Node 24, no network; \`npx proof-verify\` from a clone's root, or \`npm link\` in \`verifier/\` to put it on your PATH), pinned to the two roots of step 1. ${verdictText.en(line)} It also names the latest renewal and says when its authority certificate expires. After the authority's certificate has expired, a package without a valid, renewed evidence record is \`NOT VERIFIED\` (download the package again for the latest renewals):`,
    s8n: (line: string) =>
      `This package holds no evidence record yet: it is added about an hour after sealing. Download the package again then; meanwhile \`proof-verify\`, pinned to the two roots of step 1, checks everything else. ${verdictText.en(line)}`,
  },
  fr: {
    intro:
      "Tout ce qui suit s'exécute dans ce dossier (le paquet décompressé) avec `curl` (à l'étape 1 seulement), `openssl` et `python3` ; l'étape 5 demande aussi `c2patool`, un outil optionnel qui n'est pas standard, et l'étape 9 `pdfsig` (poppler-utils), `certutil` (outils NSS) et `qpdf`. Chaque commande s'exécute telle qu'elle est écrite, et **rien n'est comparé à une valeur écrite dans ce fichier** : les fichiers sont vérifiés par rapport à `manifest.json`, dont les étapes 2 et 3 vérifient le sceau et l'horodatage avec des racines obtenues hors du paquet. Chaque étape dit à quels contrôles de `proof-verify` et de la page de vérification publique elle correspond (leurs noms entre parenthèses) et ce que signifie un échec.",
    s1: "1. Les racines, obtenues hors de ce paquet (`tsa_root_pinned`, `service_root_pinned`)",
    s1t: (url: string) =>
      `**Un \`chain.pem\` ou un \`c2pa-trust-anchor.pem\` pris dans ce paquet ne prouve rien à lui seul** : n'importe qui peut fabriquer une racine et une autorité portant les mêmes noms. Ce qui donne leur sens aux étapes suivantes, c'est une racine obtenue ailleurs : la liste des racines que publie le service (${url}, et \`docs/trust-anchors.md\` dans son dépôt), et pour l'autorité d'horodatage sa propre publication (pour une autorité qualifiée, son entrée dans la liste de confiance de l'UE, https://eidas.ec.europa.eu/efda/tl-browser/). Ces commandes récupèrent la liste publiée, y prennent les racines que nomment les chaînes de ce paquet, et les enregistrent sous \`tsa-root.pem\` (celle de l'autorité) et \`service-root.pem\` (celle du service, qui scelle la preuve et signe ses fichiers). Chaque ligne affichée doit nommer une racine et son mode (\`test\` : sans valeur légale) ; comparez aussi l'empreinte SHA-256 avec la publication de l'autorité elle-même. **Ce fichier n'est pas scellé** : avant de lancer les commandes, vérifiez que l'adresse qu'elles interrogent est bien celle du service telle que vous la connaissez par ailleurs (son site, votre contrat avec lui, \`docs/trust-anchors.md\`), et pas seulement celle écrite ici ; un paquet falsifié peut nommer la liste d'un faussaire.`,
    s1f: "**FAILED** signifie que les chaînes du paquet aboutissent à une racine que le service ne publie pas : le paquet n'a pas été fait par ce service, ou ses chaînes ont été remplacées. Arrêtez-vous là : rien d'autre dans le paquet n'est digne de confiance.",
    s2: "2. Le sceau sur l'ensemble de la preuve (`manifest_seal`)",
    s2t: "Le service a signé `manifest.json` (chaque fichier, son étape et sa position, ses deux empreintes, la référence, la partie, le mode) de son sceau de preuve, `manifest.p7s`, une signature CMS qui remonte à la racine du service de l'étape 1. La commande doit afficher `Verification successful`, puis ce que déclare le manifeste scellé :",
    s2a: (epoch: number) =>
      `openssl vérifie le certificat du sceau à la date du jour. Une fois celui-ci expiré, vérifiez-le à \`gen_time\` (${epoch} secondes depuis 1970, lu dans le jeton à l'étape 3), l'instant où le jeton prouve que le manifeste existait :`,
    s2f: "**Un échec** (`Verification failure`, `content verify error`) signifie que `manifest.json` n'est pas la liste que le service a scellée : elle a été modifiée (un fichier retiré ou ajouté, une autre référence, une autre partie ou un autre identifiant de preuve) ou fabriquée par quelqu'un d'autre. Rien de ce qu'elle liste n'est alors digne de confiance.",
    s2n: "Cette preuve a été scellée avant que le service ne scelle les preuves dans leur ensemble : son paquet n'a pas de `manifest.p7s`, rien d'autre que l'horodatage ne lie donc son manifeste au service, et `proof-verify` ne peut pas la dire VERIFIED. Ce que déclare le manifeste :",
    s3: "3. L'horodatage (`timestamp_imprint`, `timestamp_signature`, `timestamp_signer`, `timestamp_chain`)",
    s3t: "Lisez l'heure (`Time stamp:`, c'est `gen_time`) et l'autorité (`TSA:` ; une autorité peut la laisser `unspecified`, son nom est alors le sujet du certificat qui a signé le jeton) dans le jeton lui-même, puis vérifiez le jeton sur `manifest.json` avec la racine de l'autorité de l'étape 1 (la chaîne du paquet ne fournit que les certificats intermédiaires). La commande doit afficher `Verification: OK` :",
    s3a: (epoch: number) =>
      `openssl vérifie les certificats à la date du jour. Une fois le certificat de l'autorité expiré, vérifiez-les plutôt à \`gen_time\` (${epoch} secondes depuis 1970) :`,
    s3f: "**Un échec** signifie que le jeton ne couvre pas ce `manifest.json` (il a été modifié après l'horodatage) ou qu'il n'a pas été émis par l'autorité dont vous avez obtenu la racine.",
    s3l: "Limites de `-attime` : aucune révocation n'est vérifiée, donc un jeton antidaté fait avec une clé divulguée après l'expiration de son certificat serait accepté aussi ; cela ne sert plus une fois la racine elle-même retirée, ni quand SHA-256 ou l'algorithme de signature de l'autorité ne sont plus jugés sûrs. Gardez ce paquet intact : c'est un horodatage d'archive ultérieur qui le couvre (RFC 4998, étape 8) qui permet de vérifier une telle preuve pendant des décennies. L'étape 7 vérifie les données de révocation recueillies au scellement.",
    s4: "4. Les fichiers sont ceux que scelle le manifeste (`files_listed`, `file_hash:<id du fichier>`)",
    s4t: "Chaque fichier que liste le `manifest.json` scellé doit se trouver dans `files/` avec son `signed_sha256`, et `files/` ne doit rien contenir d'autre. Chaque ligne doit finir par `OK` :",
    s4f: "**FAILED** signifie qu'un fichier a été remplacé (`not the file the manifest seals`), retiré (`missing`) ou ajouté (`not in the sealed manifest`) après le scellement : ce fichier ne prouve rien, et celui qui manque était peut-être celui qui comptait.",
    s5: "5. La signature C2PA de chaque fichier (`file_c2pa:<id du fichier>`, `file_names_proof:<id du fichier>` ; optionnel, demande c2patool)",
    s5t: "c2patool (le lecteur C2PA de référence, https://github.com/contentauth/c2pa-rs) n'est pas un outil standard. Ne faites confiance qu'aux deux racines de l'étape 1, sinon le lecteur signale `signingCredential.untrusted` ou `timeStamp.untrusted` ; chaque fichier doit être lu comme `Trusted` :",
    s5n: "Son assertion de capture `com.proofseal.capture` doit nommer cette preuve comme le fait le manifeste scellé (`proof_id`, `session_id`, `organization_id`, `mode`, `external_reference`, `party`, `stage`, `compare_to`) ainsi que l'étape (`step_id`) et la position (`position`) du fichier : un fichier qui nomme une autre preuve en a été tiré. L'assertion sépare ce que le service a constaté de ce que l'appareil a déclaré. Exception : une vidéo WebM, dans laquelle C2PA ne peut pas être intégré, est gardée telle que reçue (`signed_sha256` égale `sha256`) et n'est prouvée que par le manifeste scellé. Un fichier choisi sur l'appareil, ou déjà porteur de Content Credentials, est inscrit comme ouvert (`c2pa.opened`) avec l'original pour ingrédient parent, jamais comme une prise de vue.",
    s5f: "**Pas `Trusted`**, ou une autre preuve nommée, signifie que la signature du fichier n'est pas celle du service, ou que le fichier appartient à une autre preuve. `Trusted` ne suffit pas : c2patool a besoin de la racine de l'autorité pour les horodatages C2PA, et ferait donc aussi confiance à un signataire émis sous cette racine. L'émetteur du signataire (`signature_info.issuer`) doit être l'organisation de la racine du service de l'étape 1 ; `proof-verify` (étape 8) vérifie que c'est la racine du service elle-même qui l'a émis (`file_c2pa`).",
    s6: "6. Les originaux envoyés par l'appareil (`file_original:<id du fichier>`)",
    s6t: "Le manifeste scellé donne aussi l'empreinte SHA-256 de ce que l'appareil a envoyé (`sha256`). Pour un JPEG, retirer les segments APP11 (où C2PA range son manifeste) redonne exactement ces octets (écrits sous `original-<id du fichier>.jpg`) ; chaque ligne doit afficher `OK` :",
    s6o: "Pour les autres formats, le fichier signé ne peut pas redevenir l'original octet pour octet : le PNG reçoit un bloc `caBX`, le MP4 ou le HEIC une boîte C2PA et leurs décalages sont réécrits. Leur original est prouvé par le `sha256` du manifeste scellé, et le manifeste C2PA du fichier signé lie son contenu (`c2pa.hash.data` ou `c2pa.hash.bmff`). **FAILED** signifie que le fichier signé ne contient pas l'original que scelle le manifeste.",
    none: "Aucun JPEG dans cette preuve.",
    s7: "7. Révocation à gen_time : les données recueillies au scellement (`revocation`, `revocation_sealed`)",
    s7l: "Les données de révocation sont ajoutées au paquet après l'horodatage, que le jeton ne couvre donc pas ; le sceau les couvre : `manifest.p7s` liste chaque fichier de `revocation/` par son nom et son SHA-256 dans un attribut signé, que l'étape 2 a vérifié avec le sceau. La commande ci-dessous compare les fichiers à cette liste ; chaque ligne doit finir par `OK`. **FAILED** signifie que les données de révocation ont été modifiées, retirées ou ajoutées après le scellement (`not the file manifest.p7s seals`, `missing`, `not in the list`) : la suite de cette étape, qui lit `revocation/index.json`, ne prouve alors rien, et `proof-verify` refuse aussi le paquet.",
    s7i: "`revocation/index.json` dit, pour chaque certificat sur lequel la preuve repose (le signataire de l'autorité `tsa`, le signataire C2PA `c2pa`), si la CRL de son émetteur a été recueillie au scellement, d'où et quand, ou pourquoi pas. Tout paquet scellé avec des données de révocation le contient : la commande ci-dessous doit lister les deux signataires. **FAILED** (l'index absent, ou un signataire omis) signifie que le paquet a été privé de ses données de révocation, et `proof-verify` le refuse aussi. Un certificat affiché `not captured at sealing` (la CRL de son émetteur n'a pas pu être obtenue alors) est signalé avec la raison, pas en échec : rien ci-dessous ne le vérifie.",
    s7t: "Au scellement, le service a récupéré la CRL que publie l'émetteur de chaque certificat (à l'adresse inscrite dans le certificat) et l'a placée dans `revocation/` à côté du certificat qu'elle couvre ; `revocation/index.json` dit lequel, d'où et quand. Pour chacun : la première commande vérifie que la CRL est signée par l'émetteur du certificat, et doit afficher `verify OK` (openssl termine quand même avec 0 quand il affiche `verify failure`), puis ses dates : `lastUpdate` avant `gen_time` ou au plus une heure après, `nextUpdate` après ; la seconde vérifie le certificat avec elle, avec la racine de l'étape 1, à `gen_time`, ou au `lastUpdate` de la CRL quand elle a été émise juste après le jeton (openssl refuse une CRL émise après l'instant où il vérifie), et doit afficher `OK`. `certificate revoked` signifie que la CRL le liste : le jeton n'est alors digne de confiance que si la révocation est postérieure à `gen_time` (`openssl crl -inform DER -in <crl> -noout -text` donne les dates de révocation et d'invalidité).",
    s7s: "Le certificat du sceau de la preuve (dans `manifest.p7s`) est émis par la racine du service, comme le signataire C2PA, et désigne la même CRL : ces commandes l'extraient du sceau et le vérifient avec cette CRL à `gen_time` ; la dernière doit afficher `OK`. `certificate revoked` signifie que la clé du sceau a été retirée : la preuve n'est alors digne de confiance que si c'est arrivé après `gen_time`.",
    s7u: "Aucune donnée de révocation n'a pu être recueillie au scellement pour ces certificats ; elle n'est donc pas dans le paquet (signalé, pas un échec) :",
    s7n: "Cette preuve a été scellée avant que le service ne recueille les données de révocation : le paquet n'en contient pas.",
    s9: "9. Les rapports PDF scellés (`report`, `pair_report`)",
    s9t: "`report.pdf` (et pour un après `pair-report.pdf`, celui de la paire) est ce qu'un tribunal lit en premier. Mettez la racine du service de l'étape 1 dans une base NSS (`certutil`, des outils de NSS) pour que `pdfsig` (poppler) lui fasse confiance, puis vérifiez le sceau du rapport et qu'il porte les fichiers de ce paquet octet pour octet (`qpdf`). Chaque ligne doit finir par `OK`, et `cmp` ne doit rien afficher :",
    s9f: "**FAILED**, ou une différence signalée par `cmp`, signifie que ce PDF n'est pas le rapport scellé de cette preuve : celui d'une autre preuve, un rapport de test, un rapport modifié après son sceau, ou pas un rapport du service. Fiez-vous au paquet, pas au PDF. pdfsig ne vérifie ni l'horodatage du document, ni que seules des données de validation ont été ajoutées après le sceau (une page recouverte puis horodatée de nouveau) : `proof-verify` (étape 8) vérifie les deux, et refuse un fichier ajouté que le paquet ne liste pas (`package_contents`), comme un second PDF à côté de `report.pdf`.",
    s9n: "Ce paquet ne contient pas encore de rapport PDF scellé : il est établi dans la minute environ qui suit le scellement. Téléchargez de nouveau le paquet pour l'avoir.",
    s8: "8. Une fois les certificats expirés : l'enregistrement de preuve (`evidence_record`, `long_term`)",
    s8t: "Les certificats expirent, des clés peuvent être divulguées des années plus tard, les algorithmes s'affaiblissent. Le `-attime` de l'étape 3 ne montre alors que ce que valaient les certificats à `gen_time`, pas que le jeton a été fait avant leur expiration ou leur révocation. C'est le rôle de `evidence-record.ers` (RFC 4998, ajouté environ une heure après le scellement) : des horodatages d'archive sur `manifest.json`, `proof.tsr` et `revocation/`, faits sur de nombreuses preuves à la fois grâce à un arbre de hachage et renouvelés par le service avant l'expiration de chaque certificat d'autorité (et avec un nouvel algorithme de hachage quand SHA-256 doit être remplacé). Chaque horodatage d'archive montre que ce qui le précède existait tant que ses certificats étaient encore valides. **openssl ne sait pas vérifier seul un enregistrement de preuve** : il n'a aucune commande pour ses arbres de hachage ; il peut seulement montrer que le fichier contient des jetons RFC 3161 (la première commande les compte).",
    s8v: (line: string) =>
      `Vérifiez l'enregistrement, et toutes les étapes ci-dessus d'un coup, avec \`proof-verify\`, le vérificateur hors ligne du dépôt du service (\`verifier/\`, Node 24, sans réseau ; \`npx proof-verify\` depuis la racine d'un clone, ou \`npm link\` dans \`verifier/\` pour le mettre dans votre PATH), épinglé aux deux racines de l'étape 1. ${verdictText.fr(line)} Il nomme aussi le dernier renouvellement et dit quand expire son certificat d'autorité. Une fois le certificat de l'autorité expiré, un paquet sans enregistrement de preuve valide et renouvelé est \`NOT VERIFIED\` (téléchargez de nouveau le paquet pour avoir les derniers renouvellements) :`,
    s8n: (line: string) =>
      `Ce paquet ne contient pas encore d'enregistrement de preuve : il est ajouté environ une heure après le scellement. Téléchargez de nouveau le paquet à ce moment-là ; en attendant, \`proof-verify\`, épinglé aux deux racines de l'étape 1, vérifie tout le reste. ${verdictText.fr(line)}`,
  },
} as const;

/**
 * Step 7's commands for each captured CRL: its signature by the issuer (the next certificate up, or the
 * root), then the certificate checked against it with openssl's own chain building, at gen_time or at the
 * CRL's lastUpdate when that is later (openssl calls a CRL issued after -attime "not yet valid").
 */
function revocationCommands(entries: RevocationIndexEntry[], genEpoch: number): string[] {
  const root = { tsa: "tsa-root.pem", c2pa: "service-root.pem", seal: "service-root.pem" } as const;
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

/**
 * The proof seal's certificate against the service root's CRL captured for the C2PA signer: the same issuer and
 * the same distribution point (docs/adr/0027), what the core's `revocation:seal` checks. openssl refuses a CRL
 * that is not the certificate's issuer's ("unable to get certificate CRL").
 */
function sealRevocationCommands(revocation: RevocationIndexEntry[], genEpoch: number): string[] {
  const rootCrl = revocation.find((entry) => entry.chain === "c2pa" && entry.position === 1 && entry.crl !== null);
  if (!rootCrl) return [];
  const at = Math.max(genEpoch, Math.ceil(Date.parse(rootCrl.this_update ?? "") / 1000) || 0);
  return [
    "openssl pkcs7 -inform DER -in manifest.p7s -print_certs -out seal-certificate.pem",
    `openssl verify -crl_check -CRLfile ${rootCrl.crl} -CAfile service-root.pem -attime ${at} seal-certificate.pem`,
  ];
}

function revocationStep(revocation: RevocationIndexEntry[] | null, genEpoch: number, sealed: boolean, lang: Lang): string[] {
  const t = TEXT[lang];
  if (revocation === null) return [`### ${t.s7}`, t.s7n];
  const seal = sealed ? sealRevocationCommands(revocation, genEpoch) : [];
  const commands = revocationCommands(revocation, genEpoch);
  const missing = revocation.filter((entry) => entry.status === "unavailable").map((entry) => `- \`${entry.certificate}\` (${entry.subject}): ${entry.reason}`);
  return [
    `### ${t.s7}`,
    ...(sealed ? [t.s7l, sh(SEALED_REVOCATION_LIST)] : []),
    t.s7i,
    sh(REVOCATION_INDEX_CHECK),
    t.s7t,
    ...(commands.length === 0 ? [] : [sh(...commands)]),
    ...(seal.length === 0 ? [] : [t.s7s, sh(...seal)]),
    ...(missing.length === 0 ? [] : [t.s7u, missing.join("\n")]),
  ];
}

/**
 * Step 8: the evidence record (RFC 4998), which openssl cannot check; `proof-verify` can, run in this folder
 * pinned to the SHA-256 of the roots step 1 saved (test/e2e/evidence-record.e2e.test.ts runs these commands).
 */
function evidenceStep(hasEvidenceRecord: boolean, testMode: boolean, lang: Lang): string[] {
  const t = TEXT[lang];
  const line = verdictLine("verified", testMode);
  const verify = `proof-verify . --tsa-root-sha256 ${rootSha256("tsa-root.pem")} --service-root-sha256 ${rootSha256("service-root.pem")}`;
  if (!hasEvidenceRecord) return [`### ${t.s8}`, t.s8n(line), sh(verify)];
  return [`### ${t.s8}`, t.s8t, sh("openssl asn1parse -inform DER -in evidence-record.ers | grep -c :pkcs7-signedData"), t.s8v(line), sh(verify)];
}

/** The sealed PDF reports a package carries (docs/adr/0044): `report.pdf`, and an after's `pair-report.pdf`. */
export type PackagedReportName = "report.pdf" | "pair-report.pdf";

/**
 * Step 9: each sealed report's seal under the service root of step 1 (pdfsig with that root alone in an NSS
 * database) and its attachments against this package's files (qpdf), the core's `report` and `pair_report`
 * (docs/adr/0056). The seal's revision rule and the document timestamp are proof-verify's (step 8).
 */
function reportStep(reports: PackagedReportName[], sealed: boolean, lang: Lang): string[] {
  const t = TEXT[lang];
  if (reports.length === 0) return [`### ${t.s9}`, t.s9n];
  const database =
    "rm -rf report-nssdb && mkdir report-nssdb && certutil -N -d sql:report-nssdb --empty-password && certutil -A -d sql:report-nssdb -n service-root -t C,C,C -i service-root.pem";
  const files = ["manifest.json", ...(sealed ? ["manifest.p7s"] : []), "proof.tsr"];
  const commands = reports.flatMap((report) => {
    const prefix = report === "pair-report.pdf" ? "after-" : "";
    return [
      `pdfsig -nssdir sql:report-nssdb ${report} | ${reportSignatures(report)}`,
      ...files.map((file) => `qpdf --show-attachment=${prefix}${file} ${report} | cmp - ${file}`),
      ...(report === "pair-report.pdf" ? [`qpdf --show-attachment=before-manifest.json ${report} | ${BEFORE_MANIFEST}`] : []),
    ];
  });
  return [`### ${t.s9}`, t.s9t, sh(database, ...commands), t.s9f];
}

/**
 * The numbered offline steps of VERIFY.md in one language: both languages print the very same commands. No
 * command compares with a value only this file states: the roots come from the list the service publishes at
 * `baseUrl` (step 1), the manifest from its seal and token (steps 2, 3), the files from the sealed manifest.
 * Each step names the checks of the verification core (shared/verification/) it performs.
 */
export function verifySteps(
  proof: ProofRow,
  files: FileRow[],
  lang: Lang,
  revocation: RevocationIndexEntry[] | null = null,
  hasEvidenceRecord = false,
  baseUrl = "{base_url}",
  reports: PackagedReportName[] = [],
): string {
  const t = TEXT[lang];
  const epoch = proof.timestampGenTime ? Math.floor(Date.parse(proof.timestampGenTime) / 1000) : 0;
  const name = (file: FileRow) => `files/${file.id}.${fileExtension(file.contentType)}`;
  const c2pa = files.filter((file) => file.signedSha256 && file.contentType !== "video/webm");
  const hasJpeg = files.some((file) => file.signedSha256 && file.contentType === "image/jpeg");
  const published = `${baseUrl.replace(/\/$/, "")}/v1/public/trust-anchors`;
  const seal = "openssl cms -verify -binary -inform DER -in manifest.p7s -content manifest.json -CAfile service-root.pem -purpose any -out /dev/null";
  return [
    t.intro,
    `### ${t.s1}`,
    t.s1t(published),
    sh(`curl -sf ${published} -o published-roots.json`, PUBLISHED_ROOTS),
    t.s1f,
    `### ${t.s2}`,
    ...(proof.sealCertificateSha256 === null
      ? [t.s2n, sh(SEALED_FACTS)]
      : [t.s2t, sh(seal, SEALED_FACTS), t.s2a(epoch), sh(`${seal} -attime ${GEN_TIME_EPOCH}`), t.s2f]),
    `### ${t.s3}`,
    t.s3t,
    sh(
      "openssl ts -reply -in proof.tsr -text | grep -E '^(Time stamp|TSA|Serial number|Policy OID):'",
      "openssl ts -verify -data manifest.json -in proof.tsr -CAfile tsa-root.pem -untrusted chain.pem",
    ),
    t.s3a(epoch),
    sh(`openssl ts -verify -data manifest.json -in proof.tsr -CAfile tsa-root.pem -untrusted chain.pem -attime ${GEN_TIME_EPOCH}`),
    t.s3f,
    t.s3l,
    `### ${t.s4}`,
    t.s4t,
    sh(FILES_AGAINST_MANIFEST),
    t.s4f,
    `### ${t.s5}`,
    t.s5t,
    sh("cat service-root.pem tsa-root.pem > c2pa-anchors.pem", ...c2pa.map((file) => `c2patool ${name(file)} trust --trust_anchors c2pa-anchors.pem`)),
    t.s5n,
    t.s5f,
    `### ${t.s6}`,
    ...(hasJpeg ? [t.s6t, sh(JPEG_ORIGINALS)] : [t.none]),
    t.s6o,
    ...revocationStep(revocation, epoch, proof.sealCertificateSha256 !== null, lang),
    ...evidenceStep(hasEvidenceRecord, proof.mode === "test", lang),
    ...reportStep(reports, proof.sealCertificateSha256 !== null, lang),
  ].join("\n\n");
}
