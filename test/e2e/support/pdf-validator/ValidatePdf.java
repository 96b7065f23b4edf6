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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSObject;
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
 */
public class ValidatePdf {
  private static final List<String> failures = new ArrayList<>();

  private static void check(boolean passed, String what) {
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
      check(signatures.size() == 2, signatures.size() + " signatures (a seal and a document timestamp)");
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
