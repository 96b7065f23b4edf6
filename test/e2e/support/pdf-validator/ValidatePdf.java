import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.cert.CertPathValidator;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXCertPathBuilderResult;
import java.security.cert.CertPathBuilder;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSObject;
import org.apache.pdfbox.cos.COSObjectKey;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.interactive.digitalsignature.PDSignature;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.CMSAttributes;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.tsp.TimeStampToken;

/**
 * A second judge of the sealed PDF report, written with libraries nobody on the team wrote: Apache PDFBox 2
 * reads the signatures and the DSS, Bouncy Castle checks the CMS and the RFC 3161 tokens, and the JDK's PKIX
 * validator builds each signer's chain to the root given, checking revocation against the DSS's CRLs only.
 *
 * Usage: java -cp <pdfbox2, fontbox2, bcprov, bcpkix, bcutil, commons-logging> ValidatePdf.java
 *        <report.pdf> <seal-root.pem> <tsa-root.pem>
 * Prints one line per finding; exits 0 when every check passes, 1 otherwise (2: could not run).
 * The seal must certify the document (DocMDP P=2) and what follows it obey docs/adr/0057 (UpdatesAfterSeal).
 */
public class ValidatePdf {
  private static final List<String> failures = new ArrayList<>();

  static void check(boolean passed, String what) {
    System.out.println((passed ? "ok   " : "FAIL ") + what);
    if (!passed) failures.add(what);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ValidatePdf <report.pdf> <seal-root.pem> <tsa-root.pem>");
      System.exit(2);
    }
    byte[] file = Files.readAllBytes(new File(args[0]).toPath());
    X509Certificate sealRoot = certificate(Files.readAllBytes(new File(args[1]).toPath()));
    X509Certificate tsaRoot = certificate(Files.readAllBytes(new File(args[2]).toPath()));
    try (PDDocument document = PDDocument.load(file)) {
      List<X509Certificate> dssCertificates = new ArrayList<>();
      List<X509CRL> dssCrls = new ArrayList<>();
      readDss(document, dssCertificates, dssCrls);
      check(!dssCertificates.isEmpty(), "the DSS holds " + dssCertificates.size() + " certificates");
      check(!dssCrls.isEmpty(), "the DSS holds " + dssCrls.size() + " CRLs");
      List<PDSignature> signatures = document.getSignatureDictionaries();
      List<PDSignature> seals = new ArrayList<>();
      for (PDSignature signature : signatures) if (!"ETSI.RFC3161".equals(signature.getSubFilter())) seals.add(signature);
      check(seals.size() == 1 && signatures.size() >= 2,
          signatures.size() + " signatures: one seal (" + seals.size() + ") and document timestamps after it");
      if (seals.size() == 1) UpdatesAfterSeal.check(file, document, seals.get(0));
      for (PDSignature signature : signatures) {
        byte[] contents = signature.getContents(file);
        byte[] signed = signature.getSignedContent(file);
        String name = "signature " + signature.getSubFilter() + ": ";
        if ("ETSI.RFC3161".equals(signature.getSubFilter())) {
          TimeStampToken token = new TimeStampToken(new CMSSignedData(contents));
          checkToken(token, signed, name + "document timestamp", tsaRoot, dssCertificates, dssCrls);
        } else {
          check("ETSI.CAdES.detached".equals(signature.getSubFilter()), name + "SubFilter ETSI.CAdES.detached");
          checkCades(new CMSSignedData(new CMSProcessableByteArray(signed), contents), name, sealRoot, tsaRoot, dssCertificates, dssCrls);
        }
      }
      PDSignature last = signatures.get(signatures.size() - 1);
      int[] range = last.getByteRange();
      check(range[2] + range[3] == file.length, "the last signature (" + last.getSubFilter() + ") covers the whole document");
    }
    System.exit(failures.isEmpty() ? 0 : 1);
  }

  /** The CAdES signature: the CMS over the byte range, PAdES's attributes, its signature timestamp, its chain. */
  private static void checkCades(CMSSignedData cms, String name, X509Certificate sealRoot, X509Certificate tsaRoot,
      List<X509Certificate> dssCertificates, List<X509CRL> dssCrls) throws Exception {
    SignerInformation signer = cms.getSignerInfos().getSigners().iterator().next();
    Collection<X509CertificateHolder> matches = cms.getCertificates().getMatches(signer.getSID());
    X509Certificate signerCertificate = new JcaX509CertificateConverter().getCertificate(matches.iterator().next());
    check(signer.verify(new JcaSimpleSignerInfoVerifierBuilder().build(signerCertificate)),
        name + "CMS signature and message digest valid over the byte range, by " + signerCertificate.getSubjectX500Principal());
    check(signer.getSignedAttributes().get(CMSAttributes.signingTime) == null, name + "no signingTime (PAdES)");
    check(signer.getSignedAttributes().get(PKCSObjectIdentifiers.id_aa_signingCertificateV2) != null, name + "ESS signing-certificate-v2");
    Attribute stamp = signer.getUnsignedAttributes() == null ? null
        : signer.getUnsignedAttributes().get(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken);
    check(stamp != null, name + "a signature timestamp");
    if (stamp != null) {
      TimeStampToken token = new TimeStampToken(new CMSSignedData(stamp.getAttrValues().getObjectAt(0).toASN1Primitive().getEncoded()));
      checkToken(token, signer.getSignature(), name + "signature timestamp", tsaRoot, dssCertificates, dssCrls);
    }
    List<X509Certificate> pool = new ArrayList<>(dssCertificates);
    for (X509CertificateHolder holder : cms.getCertificates().getMatches(null)) pool.add(new JcaX509CertificateConverter().getCertificate(holder));
    checkChain(signerCertificate, sealRoot, pool, dssCrls, name + "seal certificate");
  }

  /** An RFC 3161 token: its imprint is the SHA-256 of `imprinted`, its signature valid, its signer chained to the root. */
  private static void checkToken(TimeStampToken token, byte[] imprinted, String name, X509Certificate root,
      List<X509Certificate> dssCertificates, List<X509CRL> dssCrls) throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(imprinted);
    check(Arrays.equals(digest, token.getTimeStampInfo().getMessageImprintDigest()),
        name + " imprint is the SHA-256 of what it stamps (genTime " + token.getTimeStampInfo().getGenTime().toInstant() + ")");
    Collection<X509CertificateHolder> matches = token.getCertificates().getMatches(token.getSID());
    List<X509Certificate> pool = new ArrayList<>(dssCertificates);
    X509Certificate signer = null;
    for (X509CertificateHolder holder : matches) signer = new JcaX509CertificateConverter().getCertificate(holder);
    if (signer == null) {
      for (X509Certificate candidate : dssCertificates) {
        if (token.getSID().match(new X509CertificateHolder(candidate.getEncoded()))) signer = candidate;
      }
    }
    check(signer != null, name + " signer certificate found");
    if (signer == null) return;
    try {
      token.validate(new JcaSimpleSignerInfoVerifierBuilder().build(signer));
      check(true, name + " token signature valid, by " + signer.getSubjectX500Principal());
    } catch (Exception error) {
      check(false, name + " token signature valid: " + error.getMessage());
    }
    checkChain(signer, root, pool, dssCrls, name + " signer");
  }

  /** PKIX from `leaf` to `root` through `pool`, revocation checked against the DSS's CRLs alone (no network). */
  private static void checkChain(X509Certificate leaf, X509Certificate root, List<X509Certificate> pool, List<X509CRL> crls, String name) {
    try {
      X509CertSelector target = new X509CertSelector();
      target.setCertificate(leaf);
      PKIXBuilderParameters parameters = new PKIXBuilderParameters(Set.of(new TrustAnchor(root, null)), target);
      List<Object> store = new ArrayList<>(pool);
      store.add(leaf);
      store.addAll(crls);
      parameters.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(store)));
      parameters.setRevocationEnabled(true);
      System.setProperty("com.sun.security.enableCRLDP", "false");
      PKIXCertPathBuilderResult result = (PKIXCertPathBuilderResult) CertPathBuilder.getInstance("PKIX").build(parameters);
      CertPathValidator.getInstance("PKIX").validate(result.getCertPath(), parameters);
      check(true, name + " chains to " + root.getSubjectX500Principal() + ", not revoked per the DSS's CRLs");
    } catch (Exception error) {
      check(false, name + " chains to " + root.getSubjectX500Principal() + ": " + error.getMessage());
    }
  }

  /** The catalog's /DSS: its /Certs and /CRLs streams. */
  private static void readDss(PDDocument document, List<X509Certificate> certificates, List<X509CRL> crls) throws Exception {
    COSDictionary dss = document.getDocumentCatalog().getCOSObject().getCOSDictionary(COSName.getPDFName("DSS"));
    if (dss == null) return;
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    for (byte[] der : streams(dss.getCOSArray(COSName.getPDFName("Certs")))) certificates.add(certificate(der));
    for (byte[] der : streams(dss.getCOSArray(COSName.getPDFName("CRLs")))) crls.add((X509CRL) factory.generateCRL(new ByteArrayInputStream(der)));
  }

  private static List<byte[]> streams(COSArray array) throws Exception {
    List<byte[]> decoded = new ArrayList<>();
    if (array == null) return decoded;
    for (int index = 0; index < array.size(); index++) {
      COSBase item = array.get(index);
      if (item instanceof COSObject) item = ((COSObject) item).getObject();
      try (InputStream input = ((COSStream) item).createInputStream()) {
        decoded.add(input.readAllBytes());
      }
    }
    return decoded;
  }

  private static X509Certificate certificate(byte[] derOrPem) throws Exception {
    return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(derOrPem));
  }
}

/**
 * docs/adr/0057: the seal certifies the document (catalog /Perms /DocMDP naming it, its /Reference DocMDP /P 2),
 * and every object an incremental update writes after the seal's revision is one PAdES allows there: a DSS,
 * its VRI, certificate, CRL and OCSP streams (new objects), a /DocTimeStamp value and its invisible field and
 * widget (new objects), the AcroForm with only /Fields grown and /SigFlags set, the catalog with only /DSS and
 * /AcroForm changed, or a page with only /Annots grown by those widgets. The updates are classic
 * cross-reference sections that free nothing and point only at bytes after the seal.
 */
class UpdatesAfterSeal {
  private static final Set<String> WIDGET_KEYS = Set.of("FT", "T", "V", "Type", "Subtype", "Rect", "F", "P");

  static void check(byte[] file, PDDocument document, PDSignature seal) throws Exception {
    COSDictionary sealValue = seal.getCOSObject();
    COSDictionary perms = document.getDocumentCatalog().getCOSObject().getCOSDictionary(COSName.PERMS);
    ValidatePdf.check(perms != null && perms.getDictionaryObject(COSName.DOCMDP) == sealValue && certifiesP2(sealValue),
        "the seal certifies the document: catalog /Perms /DocMDP, /Reference DocMDP /P 2");
    int[] range = seal.getByteRange();
    int sealEnd = range[2] + range[3];
    String text = new String(file, StandardCharsets.ISO_8859_1);
    Map<Long, Integer> written = new HashMap<>();
    String refused = writtenAfter(text, sealEnd, written);
    try (PDDocument sealed = PDDocument.load(Arrays.copyOf(file, sealEnd))) {
      if (refused == null) refused = rootKept(sealed, document);
      for (Map.Entry<Long, Integer> object : written.entrySet()) {
        if (refused != null) break;
        refused = refusal(sealed, document, object.getKey(), object.getValue(), written);
      }
    }
    ValidatePdf.check(refused == null, "the updates after the seal write only what PAdES allows after it"
        + (refused == null ? " (" + written.size() + " objects)" : ": " + refused));
  }

  private static boolean certifiesP2(COSDictionary signature) {
    COSArray references = signature.getCOSArray(COSName.getPDFName("Reference"));
    if (references == null || references.size() != 1 || !(references.getObject(0) instanceof COSDictionary)) return false;
    COSDictionary reference = (COSDictionary) references.getObject(0);
    COSDictionary parameters = reference.getCOSDictionary(COSName.getPDFName("TransformParams"));
    return COSName.DOCMDP.equals(reference.getCOSName(COSName.getPDFName("TransformMethod")))
        && parameters != null && parameters.getInt(COSName.P) == 2;
  }

  /** Fills `written` (number, generation) from the sections after `sealEnd`; the reason to refuse them, or null. */
  private static String writtenAfter(String text, int sealEnd, Map<Long, Integer> written) {
    Matcher last = Pattern.compile("startxref\\s+(\\d+)\\s+%%EOF\\s*$").matcher(text);
    if (!last.find(Math.max(0, text.length() - 1024))) return "no startxref at the end";
    Matcher sealStart = Pattern.compile("startxref\\s+(\\d+)\\s+%%EOF\\s*$").matcher(text.substring(0, sealEnd));
    if (!sealStart.find(Math.max(0, sealEnd - 1024))) return "the seal's revision does not end at its byte range";
    long section = Long.parseLong(last.group(1));
    Pattern subsection = Pattern.compile("\\G\\s*(\\d+)\\s+(\\d+)[ \\t]*\\r?\\n?");
    Pattern entry = Pattern.compile("\\G\\s*(\\d{10}) (\\d{5}) ([nf])\\s{1,2}");
    Set<Long> seen = new HashSet<>();
    while (section >= sealEnd) {
      if (!seen.add(section) || section >= text.length()) return "cross-reference sections loop or point outside the file";
      if (!text.startsWith("xref", (int) section)) return "a cross-reference stream after the seal (at " + section + ")";
      Matcher header = subsection.matcher(text);
      int at = (int) section + 4;
      while (header.find(at)) {
        at = header.end();
        long first = Long.parseLong(header.group(1));
        for (long number = first; number < first + Long.parseLong(header.group(2)); number++) {
          Matcher row = entry.matcher(text);
          if (!row.find(at)) return "malformed cross-reference entry for object " + number;
          at = row.end();
          if (row.group(3).equals("f")) {
            if (number != 0) return "object " + number + " freed after the seal";
          } else if (Long.parseLong(row.group(1)) < sealEnd) {
            return "object " + number + " pointed at bytes before the seal";
          } else written.putIfAbsent(number, Integer.parseInt(row.group(2)));
        }
      }
      int trailerEnd = text.indexOf("startxref", at);
      if (!text.startsWith("trailer", at) && !text.substring(at).stripLeading().startsWith("trailer") || trailerEnd < 0) return "no trailer after the cross-reference table at " + section;
      String trailer = text.substring(at, trailerEnd);
      if (trailer.contains("/XRefStm") || trailer.contains("/Encrypt")) return "a trailer after the seal names /XRefStm or /Encrypt";
      Matcher previous = Pattern.compile("/Prev\\s+(\\d+)").matcher(trailer);
      if (!previous.find()) return "an update after the seal has no /Prev";
      section = Long.parseLong(previous.group(1));
    }
    if (section != Long.parseLong(sealStart.group(1))) return "the updates do not follow the seal's revision (/Prev " + section + ")";
    return null;
  }

  private static String rootKept(PDDocument sealed, PDDocument document) {
    COSBase before = sealed.getDocument().getTrailer().getItem(COSName.ROOT);
    COSBase after = document.getDocument().getTrailer().getItem(COSName.ROOT);
    return same(before, after) ? null : "the trailer names another catalog";
  }

  private static COSBase object(PDDocument document, long number, int generation) throws Exception {
    COSObjectKey key = new COSObjectKey(number, generation);
    if (!document.getDocument().getXrefTable().containsKey(key)) return null;
    return document.getDocument().getObjectFromPool(key).getObject();
  }

  private static long numberOf(COSBase value) {
    return value instanceof COSObject ? ((COSObject) value).getObjectNumber() : -1;
  }

  /** Why object `number`, written after the seal, is refused; null when the rule allows it. */
  private static String refusal(PDDocument sealed, PDDocument document, long number, int generation, Map<Long, Integer> written) throws Exception {
    String name = "object " + number;
    // A reader keeps one entry per object number: a row under another generation hides the sealed object.
    for (COSObjectKey key : sealed.getDocument().getXrefTable().keySet())
      if (key.getNumber() == number && key.getGeneration() != generation) return name + " of the sealed revision written again under generation " + generation;
    COSBase before = object(sealed, number, generation);
    COSBase after = object(document, number, generation);
    if (!(after instanceof COSDictionary)) return name + " is not a dictionary or stream of the document";
    COSDictionary dictionary = (COSDictionary) after;
    COSDictionary catalog = document.getDocumentCatalog().getCOSObject();
    COSBase catalogItem = document.getDocument().getTrailer().getItem(COSName.ROOT);
    if (numberOf(catalogItem) == number) {
      COSDictionary old = (COSDictionary) before;
      if (!sameBut(old, dictionary, Set.of("DSS", "AcroForm"))) return "the catalog changed beyond /DSS and /AcroForm";
      return formGrown(old.getDictionaryObject(COSName.ACRO_FORM), catalog.getDictionaryObject(COSName.ACRO_FORM), sealed, written);
    }
    if (numberOf(catalog.getItem(COSName.ACRO_FORM)) == number) {
      return formGrown(before, after, sealed, written);
    }
    if (dss(catalog).contains(number)) {
      boolean dssRewritten = before instanceof COSDictionary && COSName.getPDFName("DSS").equals(((COSDictionary) before).getCOSName(COSName.TYPE))
          && COSName.getPDFName("DSS").equals(dictionary.getCOSName(COSName.TYPE));
      return before == null || dssRewritten ? null : name + " (in the DSS) overwrites an object of the sealed revision";
    }
    if (before != null) {
      if (COSName.PAGE.equals(dictionary.getCOSName(COSName.TYPE)) && before instanceof COSDictionary
          && COSName.PAGE.equals(((COSDictionary) before).getCOSName(COSName.TYPE))) {
        if (!sameBut((COSDictionary) before, dictionary, Set.of("Annots"))) return "page " + name + " changed beyond /Annots";
        return grown(((COSDictionary) before).getItem(COSName.ANNOTS), dictionary.getItem(COSName.ANNOTS), sealed, written, "page " + name + "'s /Annots");
      }
      return name + " of the sealed revision is changed";
    }
    if (after instanceof COSStream) return name + " is a new stream outside the DSS";
    if (COSName.DOC_TIME_STAMP.equals(dictionary.getCOSName(COSName.TYPE))
        && "ETSI.RFC3161".equals(dictionary.getNameAsString(COSName.SUB_FILTER))) return null;
    if (COSName.SIG.equals(dictionary.getCOSName(COSName.FT))) {
      for (COSName key : dictionary.keySet()) if (!WIDGET_KEYS.contains(key.getName())) return "signature field " + name + " has /" + key.getName();
      COSBase value = dictionary.getDictionaryObject(COSName.V);
      if (!(value instanceof COSDictionary) || !COSName.DOC_TIME_STAMP.equals(((COSDictionary) value).getCOSName(COSName.TYPE)))
        return "signature field " + name + " after the seal holds no document timestamp";
      COSArray rect = dictionary.getCOSArray(COSName.RECT);
      if (rect != null && (rect.size() != 4 || rect.toFloatArray()[0] != rect.toFloatArray()[2] && rect.toFloatArray()[1] != rect.toFloatArray()[3]))
        return "signature widget " + name + " after the seal is visible";
      return null;
    }
    return name + " (" + dictionary.getCOSName(COSName.TYPE, COSName.getPDFName("untyped")).getName() + ") is not one PAdES allows after the seal";
  }

  /** The DSS's objects: the dictionary, its arrays, its certificate, CRL and OCSP streams, its VRI and their entries. */
  private static Set<Long> dss(COSDictionary catalog) {
    Set<Long> numbers = new HashSet<>();
    COSBase item = catalog.getItem(COSName.getPDFName("DSS"));
    numbers.add(numberOf(item));
    COSBase dss = item instanceof COSObject ? ((COSObject) item).getObject() : item;
    if (!(dss instanceof COSDictionary)) return numbers;
    List<COSDictionary> holders = new ArrayList<>(List.of((COSDictionary) dss));
    COSBase vriItem = ((COSDictionary) dss).getItem(COSName.getPDFName("VRI"));
    numbers.add(numberOf(vriItem));
    COSBase vri = vriItem instanceof COSObject ? ((COSObject) vriItem).getObject() : vriItem;
    if (vri instanceof COSDictionary) {
      for (COSName key : ((COSDictionary) vri).keySet()) {
        COSBase entry = ((COSDictionary) vri).getItem(key);
        numbers.add(numberOf(entry));
        COSBase resolved = entry instanceof COSObject ? ((COSObject) entry).getObject() : entry;
        if (resolved instanceof COSDictionary) holders.add((COSDictionary) resolved);
      }
    }
    for (COSDictionary holder : holders) {
      for (String key : List.of("Certs", "CRLs", "OCSPs", "Cert", "CRL", "OCSP")) {
        COSBase arrayItem = holder.getItem(COSName.getPDFName(key));
        numbers.add(numberOf(arrayItem));
        COSBase array = arrayItem instanceof COSObject ? ((COSObject) arrayItem).getObject() : arrayItem;
        if (array instanceof COSArray) for (int index = 0; index < ((COSArray) array).size(); index++) {
          COSBase element = ((COSArray) array).get(index);
          COSBase stream = element instanceof COSObject ? ((COSObject) element).getObject() : element;
          if (stream instanceof COSStream) numbers.add(numberOf(element));
        }
      }
    }
    numbers.remove(-1L);
    return numbers;
  }

  /** The form (direct or the object named): only /Fields grown by new fields and /SigFlags set. */
  private static String formGrown(COSBase before, COSBase after, PDDocument sealed, Map<Long, Integer> written) {
    COSBase old = before instanceof COSObject ? ((COSObject) before).getObject() : before;
    COSBase now = after instanceof COSObject ? ((COSObject) after).getObject() : after;
    if (old == null && now == null) return null;
    if (!(old instanceof COSDictionary) || !(now instanceof COSDictionary)) return "the AcroForm is added or removed after the seal";
    if (!sameBut((COSDictionary) old, (COSDictionary) now, Set.of("Fields", "SigFlags"))) return "the AcroForm changed beyond /Fields and /SigFlags";
    return grown(((COSDictionary) old).getItem(COSName.FIELDS), ((COSDictionary) now).getItem(COSName.FIELDS), sealed, written, "the AcroForm's /Fields");
  }

  /** A direct array whose old elements come first, unchanged, and whose added ones are objects written after the seal. */
  private static String grown(COSBase before, COSBase after, PDDocument sealed, Map<Long, Integer> written, String name) {
    if (before != null && !(before instanceof COSArray) || !(after instanceof COSArray)) return name + " is not a direct array";
    COSArray old = before == null ? new COSArray() : (COSArray) before;
    COSArray now = (COSArray) after;
    if (now.size() < old.size()) return name + " lost elements";
    for (int index = 0; index < now.size(); index++) {
      if (index < old.size()) {
        if (!same(old.get(index), now.get(index))) return name + " changed element " + index;
      } else {
        long number = numberOf(now.get(index));
        if (!written.containsKey(number) || sealed.getDocument().getXrefTable().containsKey(new COSObjectKey(number, written.get(number))))
          return name + " gained an element that is not a new object";
      }
    }
    return null;
  }

  private static boolean sameBut(COSDictionary before, COSDictionary after, Set<String> changeable) {
    Set<COSName> keys = new HashSet<>(before.keySet());
    keys.addAll(after.keySet());
    for (COSName key : keys) if (!changeable.contains(key.getName()) && !same(before.getItem(key), after.getItem(key))) return false;
    return true;
  }

  /** Equal as written: references by number, direct dictionaries and arrays element by element. */
  private static boolean same(COSBase a, COSBase b) {
    if (a instanceof COSObject || b instanceof COSObject) {
      return a instanceof COSObject && b instanceof COSObject && ((COSObject) a).getObjectNumber() == ((COSObject) b).getObjectNumber()
          && ((COSObject) a).getGenerationNumber() == ((COSObject) b).getGenerationNumber();
    }
    if (a instanceof COSStream || b instanceof COSStream) return false;
    if (a instanceof COSDictionary && b instanceof COSDictionary) return sameBut((COSDictionary) a, (COSDictionary) b, Set.of());
    if (a instanceof COSArray && b instanceof COSArray) {
      if (((COSArray) a).size() != ((COSArray) b).size()) return false;
      for (int index = 0; index < ((COSArray) a).size(); index++) if (!same(((COSArray) a).get(index), ((COSArray) b).get(index))) return false;
      return true;
    }
    return a == null ? b == null : a.equals(b);
  }
}
