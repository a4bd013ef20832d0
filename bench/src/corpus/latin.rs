//! Transcripts in languages written in the Latin script with diacritics, one
//! language per message, with the odd path or command of agent work.

use super::english::push_capitalized;
use super::tech::Tech;
use super::{end_sentence, Writer};
use crate::rng::{Rng, Zipf};

/// Word lists, most frequent first, one per language.
const LANGUAGES: &[&str] = &[
    // French
    "de la le et les des à un une est que en du pour qui dans ne pas sur il au
     avec ce se plus par nous vous sont mais été fait être très où déjà après
     même aussi problème fichier serveur données réseau système mise jour
     déploiement création requête réponse sécurité paramètres répertoire
     dernière première étape vérifier exécuter terminé réussi échec erreur côté
     façon français élève hôpital forêt château île naïf cœur sœur œuvre noël
     crème café bientôt voilà ça là sûr général démarrer arrêter mémoire
     vitesse résultat référence bibliothèque dépendance intégration équipe
     réunion préféré numéro télécharger sauvegarder accès privilège clé",
    // German
    "der die und in den von zu das mit sich des auf für ist im dem nicht ein
     eine als auch es an werden aus er hat dass sie nach wird bei einer um am
     sind noch wie einem über so zum war haben nur oder aber vor zur bis mehr
     durch man Größe Straße Schlüssel Überprüfung Änderung Lösung Fehler Datei
     Verzeichnis Server Datenbank Benutzer müssen können möchte würde hätte
     schön grün groß weiß heißt ähnlich natürlich gemäß Prüfung Bestätigung
     Zugriff Einstellungen Übersicht Grüße Mädchen Fußball Bücher Äpfel Öffnung
     früher später täglich wöchentlich Käse Bär Tür Zürich München Köln Gebäude
     Gefühl Abhängigkeit Überwachung Sicherheitslücke Anmeldung Passwörter
     Schnittstelle",
    // Spanish
    "de la que el en y a los se del las un por con no una su para es al lo como
     más pero sus le ya o este sí porque esta entre cuando muy sin sobre también
     me hasta hay donde quien desde todo nos durante todos uno les ni contra
     otros ese eso ante ellos año niño señor mañana corazón canción acción
     información configuración versión conexión aplicación búsqueda página
     número último próximo después además así aquí allí día días él había están
     código archivo servidor base datos usuario contraseña error éxito través
     pequeño español compañía señal sesión compilación ejecución reunión diseño",
    // Portuguese
    "de a o que e do da em um para é com não uma os no se na por mais as dos
     como mas foi ao ele das tem à seu sua ou ser quando muito há nos já está eu
     também só pelo pela até isso ela entre era depois sem mesmo aos ter seus
     quem nas me esse eles estão você tinha foram essa informação atualização
     configuração ação coração pão mãe irmã órgão avô avó número código sessão
     conexão versão usuário senha arquivo servidor área começar próximo última",
    // Polish
    "i w nie na się z do że to jest jak ale po co tak przez dla już może być był
     była są jeszcze który która które także również źródło żółty łódź gęś mały
     duży dziękuję proszę błąd plik serwer baza danych użytkownik hasło
     wdrożenie zmiana ustawienia sprawdzić uruchomić wszystko będzie można
     trzeba więc ponieważ później teraz dzień dobry wiadomość pytanie odpowiedź
     środowisko połączenie katalog zależność książka zażółć gęślą jaźń wrzesień
     październik świetnie ćwiczenie mężczyzna żona dziś jutro wczoraj pamięć
     wydajność",
    // Czech
    "a v se na je že to s z do o k i jako ale pro podle být byl jsou také už
     ještě řeka říct čeština příliš žluťoučký kůň úpěl ďábelské ódy soubor chyba
     server databáze uživatel heslo nasazení změna nastavení ověřit spustit
     všechno bude můžete musíme protože potom teď dobrý den zpráva otázka
     odpověď prostředí připojení adresář závislost děkuji prosím řešení
     výsledek průběh paměť výkon rychlost dnes zítra včera město Praha Brno
     schůzka",
    // Swedish
    "och i att det som en på är av för med till den har de inte om ett han men
     var jag sig från vi så kan när år säger hon under också efter eller nu sin
     där vid mot ska skulle kommer ut få alla här över även därför göra kanske
     sjö Malmö Göteborg fil databas fel användare lösenord inställningar kör
     körning hälsningar tack många räksmörgås ändring förbättring sökning
     miljö version rättighet",
    // Danish and Norwegian
    "og i det er en at på til med som af av for ikke jeg den har de var han om
     så vil kan blev være også derfor gøre måske ø æble øl blåbær smørrebrød
     Ærøskøbing København Tromsø Ålesund tjener fejl feil bruger bruker
     adgangskode passord indstillinger innstillinger kjør kjøring takk tusind
     tusen høst vår sommer søndag lørdag blåbærsyltetøy første nøkkel løsning
     tilgang størrelse",
    // Icelandic
    "og að er í á það sem var ekki við hann með fyrir um en til þú ég þetta eru
     hún þá þeir Þórður Reykjavík þjónn gögn villa skrá notandi lykilorð
     uppfærsla tenging góðan daginn takk já nei þjónusta öryggi aðgangur
     stærð leit niðurstaða",
    // Turkish
    "ve bir bu da de için ile çok daha ama değil gibi olarak şimdi sonra önce
     hata dosya sunucu veritabanı kullanıcı şifre güncelleme yapılandırma
     çalıştır başarılı başarısız teşekkürler lütfen şehir çiçek güneş İstanbul
     Ankara İzmir Iğdır kılavuz sürüm bağlantı dizin bellek hız bugün yarın dün
     toplantı ekip göç ağaç öğrenci üzgünüm evet hayır",
    // Vietnamese
    "và của là có không được cho người một những này trong với các để đã đến
     khi từ như cũng nhưng tôi bạn chúng ta họ rất nhiều mới lại sẽ đang việc
     năm ngày thời gian hệ thống tệp máy chủ cơ sở dữ liệu dùng mật khẩu lỗi
     triển khai cấu hình kiểm tra chạy thử nghiệm xong rồi cảm ơn xin chào Việt
     Nam tiếng thành công thất bại phiên bản cập nhật thư mục mạng kết nối ở
     đây đó nào gì sao vì thì mà nếu hôm nay mai qua bộ nhớ hiệu suất tốc độ Hà
     Nội Sài Gòn phở bánh mì cà phê",
    // Romanian
    "și în de la cu pe un o este că nu din pentru se mai care ce sunt fost sau
     deja dar până după când încă așa fișier eroare server bază date utilizator
     parolă actualizare configurație conexiune rezultat căutare mulțumesc
     bună ziua mâine astăzi ieri întâlnire echipă țară București Timișoara",
];

/// Writer of messages in one of [`LANGUAGES`] each.
#[derive(Debug, Clone)]
pub struct Latin {
    languages: Vec<Zipf>,
    tech: Tech,
}

impl Latin {
    /// A writer with its word lists.
    pub fn new() -> Latin {
        Latin {
            languages: LANGUAGES.iter().map(|list| Zipf::new(list, 0.8)).collect(),
            tech: Tech::new(),
        }
    }

    /// Appends one sentence in `language`, sometimes with a path or an
    /// identifier inside.
    fn sentence(&self, language: usize, rng: &mut Rng, out: &mut String) {
        let words = &self.languages[language];
        let length = rng.between(4, 18);
        let tech_at = rng.chance(0.15).then(|| rng.below(length));
        let mut previous = "";
        for i in 0..length {
            if i > 0 {
                out.push_str(if rng.chance(0.07) { ", " } else { " " });
            }
            if tech_at == Some(i) {
                self.tech.inline(rng, out);
                continue;
            }
            let word = words.sample_other(rng, previous);
            previous = word;
            if i == 0 {
                push_capitalized(word, out);
            } else {
                out.push_str(word);
            }
        }
        end_sentence(rng, out);
    }
}

impl Writer for Latin {
    fn language(&self, rng: &mut Rng) -> usize {
        rng.below(self.languages.len())
    }

    fn segment(&self, language: usize, rng: &mut Rng, out: &mut String) {
        if rng.chance(0.06) {
            self.tech.block(rng, out);
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            self.sentence(language, rng, out);
        }
    }
}
